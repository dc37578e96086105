package worker_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/fabricops/fabric/fabric/infra/synthetics"
	"github.com/fabricops/fabric/fabric/lib/probes"
)

// TestSyntheticsUpThenDown: a profile probing a local HTTP server reports
// it up, then down within two intervals of the server stopping; results
// are in the system stream too; a profile for another site is not run;
// and another tenant sees none of it.
func TestSyntheticsUpThenDown(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Tenants: []string{"a", "b"}, Pods: []string{api.APIServer, api.Worker, api.Worker}})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("all good")) }))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	open := func(tenant string) (*client.Client, *store.Store) {
		c, err := client.Connect(f.Configs[tenant])
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		st, err := c.Data.Store(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return c, st
	}
	ca, sta := open("a")
	r := &artifact.Repo{Store: sta}
	const interval = 5 * time.Second
	for _, a := range []struct {
		k    *artifact.Kind
		text string
	}{
		{artifact.Stack, "name: web\ncomponents:\n  - {name: front, type: http, host: 127.0.0.1, port: " + srv.URL[len("http://127.0.0.1:"):] + "}\n"},
		{artifact.Synthetics, "name: web-probes\nstack: web\nprobes:\n  - {name: home, type: http, component: front, body_regex: good, interval_seconds: 5}\n"},
		{artifact.Synthetics, "name: far\nstack: web\nsites: [elsewhere, 'remote-.*']\nprobes:\n  - {name: home, type: tcp, component: front, interval_seconds: 5}\n"},
	} {
		if _, err := r.Add(ctx, a.k, []byte(a.text), false); err != nil {
			t.Fatal(err)
		}
	}
	status, err := synthetics.OpenStatus(ctx, sta)
	if err != nil {
		t.Fatal(err)
	}
	last := func() []probes.Result {
		rs, err := status.Last(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return rs
	}
	waitFor := func(want string, within time.Duration) probes.Result {
		t.Helper()
		deadline := time.Now().Add(within)
		for time.Now().Before(deadline) {
			if rs := last(); len(rs) == 1 && rs[0].Status == want {
				return rs[0]
			} else if len(rs) > 1 {
				t.Fatalf("results of more than the one check: %+v", rs)
			}
			time.Sleep(200 * time.Millisecond)
		}
		t.Fatalf("no %s result within %s: %+v", want, within, last())
		return probes.Result{}
	}
	// The workers read the profiles every SyntheticsReload, then probe.
	up := waitFor(probes.StatusUp, 15*time.Second)
	if up.Profile != "web-probes" || up.Check != "home" || up.Component != "front" || up.Site != "local" || up.HTTPStatus != 200 || up.Target != srv.URL+"/" {
		t.Errorf("up result: %+v", up)
	}
	srv.Close()
	stopped := time.Now()
	down := waitFor(probes.StatusDown, 2*interval)
	t.Logf("down %s after the server stopped: %s", time.Since(stopped).Round(time.Millisecond), down.Reason)

	// One worker runs each run: the stream holds no two results of one
	// interval.
	var times []time.Time
	if _, err := streams.Read(ctx, ca.JetStream(), api.StreamSynthetics, streams.ReadOptions{}, func(m streams.Message) error {
		times = append(times, m.Time)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(times) < 2 {
		t.Fatalf("%d results in the stream", len(times))
	}
	for i := 1; i < len(times); i++ {
		if gap := times[i].Sub(times[i-1]); gap < interval-time.Second {
			t.Errorf("two results %s apart: two workers ran one interval's probe", gap)
		}
	}

	// Tenant b has its own (empty) status.
	_, stb := open("b")
	sb, err := synthetics.OpenStatus(ctx, stb)
	if err != nil {
		t.Fatal(err)
	}
	if rs, err := sb.Last(ctx); err != nil || len(rs) != 0 {
		t.Errorf("tenant b sees %d results (%v)", len(rs), err)
	}

	// A deleted profile's results go.
	if err := r.Delete(ctx, artifact.Synthetics, "web-probes"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for len(last()) > 0 && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
	}
	if rs := last(); len(rs) != 0 {
		t.Errorf("the results of a deleted profile stay: %+v", rs)
	}
}
