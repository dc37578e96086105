package cli

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
)

// TestOutputSyntheticsStatus: synthetics status before any result, with
// the results of a profile against a local HTTP server (up, then down
// once it stopped), as JSON, and with bad input.
func TestOutputSyntheticsStatus(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer, api.Worker}})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("all good")) }))
	defer srv.Close()
	s := newSession(t, "synthetics-status")
	s.sc.Column("latency_ms", "<MS>")
	dir := s.vars["DIR"]
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	write(t, dir, "stack.yaml", "name: web\ncomponents:\n  - {name: front, type: http, host: 127.0.0.1, port: "+port+"}\n")
	write(t, dir, "probes.yaml", "name: web-probes\nstack: web\nprobes:\n"+
		"  - {name: home, type: http, component: front, body_regex: good, interval_seconds: 5}\n"+
		"  - {name: port, type: tcp, component: front, interval_seconds: 5}\n")
	// wait runs synthetics status until every check is status.
	wait := func(status string) func() {
		return func() {
			deadline := time.Now().Add(20 * time.Second)
			for time.Now().Before(deadline) {
				out, _, _ := run(t, "", "synthetics", "status")
				if strings.Count(out, "  "+status+"  ") == 2 {
					return
				}
				time.Sleep(300 * time.Millisecond)
			}
			t.Fatalf("the checks are not %s within 20s", status)
		}
	}
	s.steps(
		step{cmd: "synthetics status"},
		step{cmd: "stack add --file $DIR/stack.yaml", setup: true},
		step{cmd: "synthetics add --file $DIR/probes.yaml", setup: true},
		step{do: wait("up")},
		step{cmd: "synthetics status"},
		step{cmd: "synthetics status --json"},
		step{do: srv.Close},
		step{do: wait("down")},
		step{cmd: "synthetics status"},
		step{cmd: "synthetics status --bogus", code: 2},
		step{cmd: "synthetics status extra", code: 2},
	)
}
