package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	buildOut  []byte
)

// buildClient builds the client binaries once for the package's tests, as
// make build does: the lean client (returned), client-data beside it (the
// full client it hands data work to) and fabricd (it starts the local
// fabric).
func buildClient(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "client-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "client")
		// As make build does: the lean client, the full one it hands data
		// work to, and fabricd.
		for _, args := range [][]string{
			{"build", "-o", binPath, "."},
			{"build", "-o", filepath.Join(dir, "client-data"), "../client-data"},
			{"build", "-o", filepath.Join(dir, "fabricd"), "../fabricd"},
		} {
			if buildOut, buildErr = exec.Command("go", args...).CombinedOutput(); buildErr != nil {
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatalf("build: %v\n%s", buildErr, buildOut)
	}
	return binPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// client runs the binary in home, without any network configuration in
// the environment.
func client(t *testing.T, home string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(buildClient(t), args...)
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "FABRIC_") {
			env = append(env, e)
		}
	}
	cmd.Env = append(env, "FABRIC_HOME="+home, "NO_COLOR=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

// TestLocalFabricLifecycle: on a fresh FABRIC_HOME, "client pods" starts
// the local fabric and prints the table; "fabric down" stops it and leaves
// no process behind.
func TestLocalFabricLifecycle(t *testing.T) {
	home := t.TempDir()
	t.Cleanup(func() { client(t, home, "fabric", "down") })

	out, errOut, code := client(t, home, "pods")
	if code != 0 || !strings.Contains(errOut, "starting the local fabric") || strings.Count(errOut, "\n") != 1 {
		t.Fatalf("pods on a fresh home: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 9 || !strings.Contains(out, "*leader*") {
		t.Fatalf("want the table of 7 pods:\n%s", out)
	}
	cfg, err := os.Stat(filepath.Join(home, "fabric_network_config.json"))
	if err != nil || cfg.Mode().Perm() != 0o600 {
		t.Fatalf("default network configuration: %v %v", cfg, err)
	}

	var st struct{ PID int }
	data, err := os.ReadFile(filepath.Join(home, "local", "fabric.json"))
	if err != nil || json.Unmarshal(data, &st) != nil || st.PID == 0 {
		t.Fatalf("no state of the running fabric: %v %s", err, data)
	}
	if _, errOut, code := client(t, home, "fabric", "up"); code != 0 || !strings.Contains(errOut, "already running") {
		t.Fatalf("second fabric up: %d %q", code, errOut)
	}
	if out, _, code := client(t, home, "pods"); code != 0 || strings.Count(out, "\n") != 9 {
		t.Fatalf("pods with the fabric running: %d\n%s", code, out)
	}
	if out, _, code := client(t, home, "fabric", "status"); code != 0 || !strings.Contains(out, "running") {
		t.Fatalf("fabric status: %d %q", code, out)
	}

	if _, errOut, code := client(t, home, "fabric", "down"); code != 0 || !strings.Contains(errOut, "local fabric stopped") {
		t.Fatalf("fabric down: %d %q", code, errOut)
	}
	if err := syscall.Kill(st.PID, 0); err == nil {
		t.Fatalf("fabric process %d is still alive after fabric down", st.PID)
	}
	if out, _, code := client(t, home, "fabric", "status"); code != 3 || strings.TrimSpace(out) != "stopped" {
		t.Fatalf("fabric status after down: %d %q", code, out)
	}
	if _, errOut, _ := client(t, home, "fabric", "down"); !strings.Contains(errOut, "not running") {
		t.Fatalf("second fabric down: %q", errOut)
	}
	if logs, _, code := client(t, home, "fabric", "logs"); code != 0 || !strings.Contains(logs, "local fabric stopped") {
		t.Fatalf("fabric logs: %d\n%s", code, logs)
	}
}

// TestFabricUpWithoutFabricd: a client with no fabricd beside it nor on
// PATH says where it looked, in one line, and starts nothing.
func TestFabricUpWithoutFabricd(t *testing.T) {
	dir := t.TempDir()
	lone := filepath.Join(dir, "client")
	data, err := os.ReadFile(buildClient(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lone, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(lone, "fabric", "up")
	cmd.Env = []string{"FABRIC_HOME=" + filepath.Join(dir, "home"), "PATH=" + dir, "HOME=" + dir}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 1 {
		t.Fatalf("want exit 1, got %v\n%s", err, stderr.String())
	}
	want := "error: fabric up: cannot start the local fabric: no fabricd beside the client (" + filepath.Join(dir, "fabricd") + ") nor on PATH; build both with 'make build' or install them with 'make install'\n"
	if stderr.String() != want {
		t.Fatalf("stderr:\n%s\nwant:\n%s", stderr.String(), want)
	}
}
