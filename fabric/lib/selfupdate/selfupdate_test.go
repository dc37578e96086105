package selfupdate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeBuild writes a build directory of version: each binary a script
// that prints its name and the version; damaged names a binary whose
// content differs from its sum.
func writeBuild(t *testing.T, dir, version string, damaged string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var sums strings.Builder
	for _, n := range []string{"client", "client-data", "fabricd"} {
		body := binary(n, version)
		sum := sha256.Sum256([]byte(body))
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), n)
		if n == damaged {
			body += "# damaged\n"
		}
		if err := os.WriteFile(filepath.Join(dir, n), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "SHA256SUMS"), []byte(sums.String()), 0o644)
	os.WriteFile(filepath.Join(dir, "VERSION"), []byte(version+"\n"), 0o644)
}

func binary(name, version string) string {
	return "#!/bin/sh\necho " + name + " " + version + "\n"
}

// installed writes the installed binaries of version in dir (fabricd
// too when withDaemon).
func installed(t *testing.T, dir, version string, withDaemon bool) {
	t.Helper()
	for _, n := range []string{"client", "client-data", "fabricd"} {
		if n == "fabricd" && !withDaemon {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, n), []byte(binary(n, version)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// versions returns the version each binary of dir prints.
func versions(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, n := range []string{"client", "client-data", "fabricd"} {
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			continue
		}
		st, _ := os.Stat(filepath.Join(dir, n))
		if st.Mode().Perm()&0o100 == 0 {
			t.Errorf("%s is not executable", n)
		}
		f := strings.Fields(strings.Split(string(data), "\n")[1])
		out[n] = f[len(f)-1]
	}
	return out
}

// leftovers are files of dir an update must not leave behind.
func leftovers(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".fabric-update-") || strings.HasPrefix(e.Name(), ".fabric-previous-") || strings.HasSuffix(e.Name(), ".restore") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

func TestUpdate(t *testing.T) {
	builds := t.TempDir()
	writeBuild(t, filepath.Join(builds, "2.0"), "2.0", "")
	writeBuild(t, filepath.Join(builds, "bad"), "2.1", "client-data")
	srv := httptest.NewServer(http.FileServer(http.Dir(builds)))
	defer srv.Close()
	for _, c := range []struct {
		name       string
		from       string
		withDaemon bool
		want       map[string]string
		actions    string
		err        string
	}{
		{name: "from a directory", from: filepath.Join(builds, "2.0"), want: map[string]string{"client": "2.0", "client-data": "2.0"}, actions: "client:replace client-data:replace"},
		{name: "fabricd beside them", from: filepath.Join(builds, "2.0"), withDaemon: true, want: map[string]string{"client": "2.0", "client-data": "2.0", "fabricd": "2.0"}, actions: "client:replace client-data:replace fabricd:replace"},
		{name: "from a URL", from: srv.URL + "/2.0/", withDaemon: true, want: map[string]string{"client": "2.0", "client-data": "2.0", "fabricd": "2.0"}, actions: "client:replace client-data:replace fabricd:replace"},
		{name: "a damaged file in a directory", from: filepath.Join(builds, "bad"), err: "client-data's checksum is"},
		{name: "a damaged file at a URL", from: srv.URL + "/bad", err: "client-data's checksum is"},
		{name: "a URL that is no build", from: srv.URL + "/none", err: "404 Not Found"},
		{name: "no build", from: "", err: "no build to update from"},
		{name: "not a directory", from: filepath.Join(builds, "nope"), err: "is not a build directory"},
		{name: "another scheme", from: "ftp://example.com/b", err: "a build directory or an http(s) URL"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			installed(t, dir, "1.0", c.withDaemon)
			before := versions(t, dir)
			o := Options{Dir: dir, From: c.from, Current: "1.0"}
			rep, err := Update(context.Background(), o)
			defer leftovers(t, dir)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want %q", err, c.err)
				}
				if got := versions(t, dir); fmt.Sprint(got) != fmt.Sprint(before) {
					t.Errorf("a failed update changed the binaries: %v", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var acts []string
			for _, f := range rep.Files {
				acts = append(acts, f.Name+":"+f.Action)
			}
			if got := strings.Join(acts, " "); got != c.actions || !rep.Changed || rep.Available != "2.0" || rep.Current != "1.0" {
				t.Errorf("report %+v (%s)", rep, got)
			}
			if got := versions(t, dir); fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("binaries %v, want %v", got, c.want)
			}
			// Kept for a rollback: the 1.0 binaries.
			if got := versions(t, filepath.Join(dir, PreviousDir)); fmt.Sprint(got) != fmt.Sprint(before) {
				t.Errorf("kept %v, want %v", got, before)
			}
			// Again: nothing to do.
			rep, err = Update(context.Background(), o)
			if err != nil || rep.Changed {
				t.Errorf("second update: %+v %v", rep, err)
			}
			// Rolled back, then forward again.
			if _, err := Rollback(o); err != nil {
				t.Fatal(err)
			}
			if got := versions(t, dir); fmt.Sprint(got) != fmt.Sprint(before) {
				t.Errorf("after the rollback %v, want %v", got, before)
			}
			if _, err := Rollback(o); err != nil {
				t.Fatal(err)
			}
			if got := versions(t, dir); fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("after the second rollback %v, want %v", got, c.want)
			}
		})
	}
}

// TestCheckTouchesNothing: a check reports and writes nothing.
func TestCheckTouchesNothing(t *testing.T) {
	builds, dir := t.TempDir(), t.TempDir()
	writeBuild(t, builds, "2.0", "")
	installed(t, dir, "1.0", false)
	os.Remove(filepath.Join(dir, "client-data"))
	rep, err := Check(context.Background(), Options{Dir: dir, From: builds, Current: "1.0"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Files) != 2 || rep.Files[0].Action != "replace" || rep.Files[1].Action != "install" || rep.Changed {
		t.Errorf("%+v", rep)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("a check wrote files: %v", ents)
	}
}

// TestFailureHalfWay: a rename that fails after others restores them.
func TestFailureHalfWay(t *testing.T) {
	builds, dir := t.TempDir(), t.TempDir()
	writeBuild(t, builds, "2.0", "")
	installed(t, dir, "1.0", true)
	defer func() { rename = os.Rename }()
	calls := 0
	rename = func(from, to string) error {
		if calls++; filepath.Base(to) == "client" {
			return errors.New("disk on fire")
		}
		return os.Rename(from, to)
	}
	_, err := Update(context.Background(), Options{Dir: dir, From: builds, Current: "1.0"})
	if err == nil || !strings.Contains(err.Error(), "replacing client: disk on fire (nothing changed") || calls != 3 {
		t.Fatalf("err %v after %d renames", err, calls)
	}
	if got := versions(t, dir); fmt.Sprint(got) != fmt.Sprint(map[string]string{"client": "1.0", "client-data": "1.0", "fabricd": "1.0"}) {
		t.Errorf("after a failure: %v", got)
	}
	leftovers(t, dir)
	if _, err := os.Stat(filepath.Join(dir, PreviousDir)); err == nil {
		t.Errorf("a failed update left a rollback")
	}
}

// TestRollbackWithoutUpdate and a slow server: one clear line each.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	installed(t, dir, "1.0", false)
	if _, err := Rollback(Options{Dir: dir}); err == nil || !strings.Contains(err.Error(), "nothing to roll back to") {
		t.Errorf("rollback: %v", err)
	}
	if _, err := Update(context.Background(), Options{Dir: t.TempDir(), From: dir}); err == nil || !strings.Contains(err.Error(), "holds no client binary") {
		t.Errorf("no client: %v", err)
	}
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	defer slow.Close()
	if _, err := Check(context.Background(), Options{Dir: dir, From: slow.URL, Timeout: 200 * time.Millisecond}); err == nil || !strings.Contains(err.Error(), "timed out fetching "+slow.URL+"/VERSION") {
		t.Errorf("slow: %v", err)
	}
}
