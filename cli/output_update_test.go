package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeBinary is a program that prints its name and version.
func fakeBinary(name, version string) string {
	return "#!/bin/sh\necho " + name + " " + version + "\n"
}

// writeFakeBuild writes a build directory as make dist does, of fake
// binaries of version; the one named damaged differs from its sum.
func writeFakeBuild(t *testing.T, dir, version, damaged string) {
	t.Helper()
	var sums strings.Builder
	for _, n := range []string{"client", "client-data", "fabricd"} {
		body := fakeBinary(n, version)
		sum := sha256.Sum256([]byte(body))
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), n)
		if n == damaged {
			body += "# damaged\n"
		}
		write(t, dir, n, body)
		os.Chmod(filepath.Join(dir, n), 0o755)
	}
	write(t, dir, "SHA256SUMS", sums.String())
	write(t, dir, "VERSION", version+"\n")
}

// TestOutputUpdate: client update from a build directory and from a
// real HTTP server, a check that changes nothing, a damaged build that
// replaces nothing, a rollback, and no build named.
func TestOutputUpdate(t *testing.T) {
	s := newSession(t, "update")
	dir := s.vars["DIR"]
	bin := filepath.Join(dir, "bin")
	for _, n := range []string{"client", "client-data"} {
		write(t, bin, n, fakeBinary(n, "1.0"))
		os.Chmod(filepath.Join(bin, n), 0o755)
	}
	writeFakeBuild(t, filepath.Join(dir, "builds", "2.0"), "2.0", "")
	writeFakeBuild(t, filepath.Join(dir, "builds", "bad"), "2.1", "client-data")
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Join(dir, "builds"))))
	t.Cleanup(srv.Close)
	s.vars["URL"] = srv.URL
	s.sc.Literal(srv.URL, "<URL>")
	t.Setenv("FABRIC_UPDATE_FROM", "")
	version := func(want string) step {
		return step{do: func() {
			for _, n := range []string{"client", "client-data"} {
				data, err := os.ReadFile(filepath.Join(bin, n))
				if err != nil || string(data) != fakeBinary(n, want) {
					t.Fatalf("%s: %q %v, want version %s", n, data, err, want)
				}
			}
		}}
	}

	s.steps(
		step{cmd: "update --check --from $DIR/builds/2.0 --dir $DIR/bin"},
		version("1.0"),
		step{cmd: "update --from $DIR/builds/bad --dir $DIR/bin", code: 1},
		step{cmd: "update --from $URL/bad --dir $DIR/bin", code: 1},
		step{cmd: "update --from $URL/none --dir $DIR/bin", code: 1},
		version("1.0"),
		step{cmd: "update --from $URL/2.0 --dir $DIR/bin"},
		version("2.0"),
		step{cmd: "update --from $DIR/builds/2.0 --dir $DIR/bin --json"},
		step{cmd: "update --rollback --dir $DIR/bin"},
		version("1.0"),
		step{cmd: "update --dir $DIR/bin", code: 1},
		step{do: func() { t.Setenv("FABRIC_UPDATE_FROM", filepath.Join(dir, "builds", "2.0")) }},
		step{cmd: "update --dir $DIR/bin"},
		version("2.0"),
		step{cmd: "update --check --rollback --dir $DIR/bin", code: 2},
		step{cmd: "update --rollback --dir $DIR/nowhere", code: 1},
	)
}
