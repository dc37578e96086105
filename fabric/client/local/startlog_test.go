package local

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	infra "github.com/fabricops/fabric/fabric/infra/local"
)

// TestStartFailureReasons: a failed start shows the lines of its logs
// that say why, written since the start, without times, repeats or a
// stack; with none, the fabric log's last lines.
func TestStartFailureReasons(t *testing.T) {
	tests := []struct {
		name          string
		before, after string // the fabric's log
		nats          string
		want          []string
		not           []string
	}{
		{
			name:   "nats errors and the fabric's",
			before: "2026/01/01 10:00:00 error: an old failure\n",
			after:  "2026/01/01 10:00:01 [t1] started api-server pod 1\n2026/01/01 10:00:02 error: creating bucket: insufficient resources\n",
			nats:   "[1] [INF] Starting\n[1] [ERR] Error setting up jetstream for account \"t80\": insufficient memory resources available\n[1] [ERR] Error setting up jetstream for account \"t80\": insufficient memory resources available\n",
			want:   []string{"creating bucket: insufficient resources", "[ERR] Error setting up jetstream for account \"t80\": insufficient memory"},
			not:    []string{"an old failure", "2026/01/01", "started api-server"},
		},
		{
			name:  "a panic without its stack",
			after: "panic: runtime error: index out of range\n\ngoroutine 1 [running]:\nmain.main()\n\t/src/main.go:10 +0x1d\n",
			want:  []string{"panic: runtime error: index out of range"},
			not:   []string{"goroutine", "main.go"},
		},
		{
			name:  "no error: the last lines",
			after: "2026/01/01 10:00:01 starting\n2026/01/01 10:00:02 waiting for the server\n",
			want:  []string{"starting", "waiting for the server"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			if err := os.MkdirAll(infra.Dir(home), 0o700); err != nil {
				t.Fatal(err)
			}
			write := func(path, text string, flag int) {
				f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|flag, 0o600)
				if err != nil {
					t.Fatal(err)
				}
				f.WriteString(text)
				f.Close()
			}
			write(infra.LogFile(home), tc.before, os.O_TRUNC)
			marks := markLogs(home)
			write(infra.LogFile(home), tc.after, os.O_APPEND)
			write(infra.NATSLogFile(home), tc.nats, os.O_APPEND)
			got := marks.reasons()
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("reasons lack %q:\n%s", w, got)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(got, n) {
					t.Errorf("reasons hold %q:\n%s", n, got)
				}
			}
			if strings.Count(got, "insufficient memory resources") > 1 {
				t.Errorf("a repeated line is shown twice:\n%s", got)
			}
			if !strings.Contains(got, filepath.Base(infra.NATSLogFile(home))) {
				t.Errorf("reasons do not name the logs:\n%s", got)
			}
		})
	}
}
