package cli

import (
	"bytes"
	"log"
	"strings"
	"sync"
	"testing"

	"github.com/fabricops/fabric/fabric/fabrictest"
)

// syncBuffer is a buffer the pods' logger and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestSecretValueNeverLeaks: with secrets added, changed and revealed
// (off a terminal: refused), and a job run with its traces watched, no
// output of the client, no line of the pods' log and no trace holds a
// value.
func TestSecretValueNeverLeaks(t *testing.T) {
	var logs syncBuffer
	fabrictest.Start(t, fabrictest.Options{Logger: log.New(&logs, "", 0)})
	dir := t.TempDir()
	write(t, dir, "hosts.pipeline", hostsPipeline)
	values := []string{"leak-canary-one-4711", "leak-canary-two-0815"}
	var seen strings.Builder
	for _, args := range [][]string{
		{"secret", "add", "--name", "db", "--value", values[0]},
		{"secret", "add", "--name", "db", "--value", values[1], "--overwrite"},
		{"secret", "get", "--name", "db", "--reveal"},
		{"secret", "list", "--json"},
		{"run-get-output", "--file", dir + "/hosts.pipeline"},
		{"jobs", "--json"},
		{"watch-traces", "--timeout", "0.5"},
		{"secret", "delete", "--name", "db"},
	} {
		out, errOut, _ := run(t, "", args...)
		if args[1] != "add" { // add echoes nothing of the value either, but its command line holds it
			seen.WriteString(out + errOut)
		}
	}
	for _, v := range values {
		if strings.Contains(seen.String(), v) {
			t.Errorf("the client printed the value %q", v)
		}
		if strings.Contains(logs.String(), v) {
			t.Errorf("the pods' log holds the value %q", v)
		}
	}
	if logs.String() == "" {
		t.Error("the pods logged nothing: the test sees no log")
	}
}
