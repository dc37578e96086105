package pod

import (
	"bytes"
	"log"
	"strings"
	"testing"

	"github.com/fabricops/fabric/fabric/api"
)

// TestChangeLogging: each change of a pod's logging configuration, and
// the refusals that change nothing; then which lines reach the pod's log.
func TestChangeLogging(t *testing.T) {
	for _, c := range []struct {
		name string
		req  api.LoggingRequest
		// want is the configuration after, "logger=level" and
		// "handler=level@target", or the error's text.
		want []string
		err  string
	}{
		{name: "get", req: api.LoggingRequest{Op: api.LoggingGet}, want: []string{"jobs=info", "file=debug@default", "nats=debug@fabric.logs.worker.1a2b3c4d"}},
		{name: "every logger", req: api.LoggingRequest{Op: api.LoggingLevel, Level: "DEBUG"}, want: []string{"jobs=debug", "pod=debug", "worker=debug"}},
		{name: "one logger", req: api.LoggingRequest{Op: api.LoggingSet, Config: &api.LoggingConfig{Loggers: map[string]string{"jobs": "warn"}}}, want: []string{"jobs=warning", "pod=info"}},
		{name: "handlers", req: api.LoggingRequest{Op: api.LoggingSet, Config: &api.LoggingConfig{Handlers: map[string]api.LogHandler{"file": {Level: "error", Target: "stderr"}, "nats": {Target: "fabric.logs.x"}}}},
			want: []string{"file=error@stderr", "nats=debug@fabric.logs.x"}},
		{name: "a handler", req: api.LoggingRequest{Op: api.LoggingHandler, Handler: "nats", Level: "info"}, want: []string{"nats=info@fabric.logs.worker.1a2b3c4d", "jobs=info"}},
		{name: "a handler to its default", req: api.LoggingRequest{Op: api.LoggingHandler, Handler: "nats", Target: "default"}, want: []string{"nats=debug@fabric.logs.worker.1a2b3c4d"}},
		{name: "a bad level", req: api.LoggingRequest{Op: api.LoggingLevel, Level: "loud"}, err: `"loud" is not a log level`},
		{name: "a logger of another type", req: api.LoggingRequest{Op: api.LoggingSet, Config: &api.LoggingConfig{Loggers: map[string]string{"jobs": "debug", "controller": "debug"}}}, err: `a worker pod has no logger "controller"`},
		{name: "a bad handler level", req: api.LoggingRequest{Op: api.LoggingSet, Config: &api.LoggingConfig{Loggers: map[string]string{"jobs": "debug"}, Handlers: map[string]api.LogHandler{"file": {Level: "x"}}}}, err: `handler file: "x" is not a log level`},
		{name: "no such handler", req: api.LoggingRequest{Op: api.LoggingHandler, Handler: "syslog", Level: "info"}, err: `no log handler "syslog"`},
		{name: "a target out of the log subjects", req: api.LoggingRequest{Op: api.LoggingHandler, Handler: "nats", Target: "fabric.pod.x.info"}, err: "a subject under fabric.logs."},
		{name: "a file target", req: api.LoggingRequest{Op: api.LoggingHandler, Handler: "file", Target: "/etc/passwd"}, err: "the file handler's target is default"},
		{name: "nothing to change", req: api.LoggingRequest{Op: api.LoggingHandler, Handler: "file"}, err: "nothing to change"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &Pod{Spec: Spec{Type: api.Worker, ID: "1a2b3c4d"}}
			got, _, err := p.ChangeLogging(c.req)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want %q", err, c.err)
				}
				got = p.LoggingConfig()
				if got.Loggers["jobs"] != "info" || got.Handlers["file"] != (api.LogHandler{Level: "debug", Target: "default"}) {
					t.Errorf("a refused change changed %+v", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				name, v, _ := strings.Cut(w, "=")
				have := got.Loggers[name]
				if h, ok := got.Handlers[name]; ok {
					have = h.Level + "@" + h.Target
				}
				if have != v {
					t.Errorf("%s: %q, want %q (%+v)", name, have, v, got)
				}
			}
		})
	}
}

// TestLogLevels: what reaches the pod's log at each setting.
func TestLogLevels(t *testing.T) {
	var buf bytes.Buffer
	p := &Pod{Spec: Spec{Type: api.Worker, ID: "1a2b3c4d", Tenant: "a", Logger: log.New(&buf, "", 0)}}
	lines := func() string {
		p.Debugf(api.LoggerJobs, "d")
		p.Infof(api.LoggerJobs, "i")
		p.Warnf(api.LoggerJobs, "w")
		p.Logf("libraries: l")
		s := buf.String()
		buf.Reset()
		return s
	}
	for _, c := range []struct {
		name string
		req  api.LoggingRequest
		want string
	}{
		{"default", api.LoggingRequest{Op: api.LoggingGet}, "[a worker 1a2b3c4d] i\n[a worker 1a2b3c4d] WARNING w\n[a worker 1a2b3c4d] libraries: l\n"},
		{"debug", api.LoggingRequest{Op: api.LoggingLevel, Level: "debug"}, "[a worker 1a2b3c4d] DEBUG d\n[a worker 1a2b3c4d] i\n[a worker 1a2b3c4d] WARNING w\n[a worker 1a2b3c4d] libraries: l\n"},
		{"the file handler at warning", api.LoggingRequest{Op: api.LoggingHandler, Handler: "file", Level: "warning"}, "[a worker 1a2b3c4d] WARNING w\n"},
		{"libraries at error, the handler at debug", api.LoggingRequest{Op: api.LoggingSet, Config: &api.LoggingConfig{Loggers: map[string]string{"libraries": "error"}, Handlers: map[string]api.LogHandler{"file": {Level: "debug"}}}}, "[a worker 1a2b3c4d] DEBUG d\n[a worker 1a2b3c4d] i\n[a worker 1a2b3c4d] WARNING w\n"},
	} {
		if _, _, err := p.ChangeLogging(c.req); err != nil {
			t.Fatal(err)
		}
		if got := lines(); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	if !p.DebugEnabled(api.LoggerJobs) || p.DebugEnabled(api.LoggerLibraries) {
		t.Errorf("DebugEnabled")
	}
}
