package portal_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// tenantConn is a tenant's way in for a test: its repository of
// artifacts and its JetStream.
type tenantConn struct {
	nc   *nats.Conn
	repo *artifact.Repo
	js   jetstream.JetStream
	cfg  *bus.Config
}

func connect(t *testing.T, cfg *bus.Config) *tenantConn {
	t.Helper()
	nc, err := bus.Connect(cfg, "portal test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	st, err := store.Open(context.Background(), nc)
	if err != nil {
		t.Fatal(err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return &tenantConn{nc: nc, repo: &artifact.Repo{Store: st}, js: js, cfg: cfg}
}

func (c *tenantConn) addDashboard(t *testing.T, doc string) {
	t.Helper()
	if _, err := c.repo.Add(context.Background(), artifact.Dashboard, []byte(doc), true); err != nil {
		t.Fatalf("adding the dashboard: %v", err)
	}
}

func (c *tenantConn) addStream(t *testing.T, name string) {
	t.Helper()
	if _, err := streams.Add(context.Background(), c.js, streams.Config{Name: name}); err != nil {
		t.Fatal(err)
	}
}

// write writes records to a stream.
func (c *tenantConn) write(t *testing.T, stream string, recs []map[string]any) {
	t.Helper()
	ctx := context.Background()
	w, err := streams.NewWriter(ctx, c.js, stream)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		b, _ := json.Marshal(r)
		if err := w.Write(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

// metrics are n records of a metric with its baseline, prediction and
// bounds, ts spread evenly over the hours before now (the last at now),
// an anomaly every tenth.
func metrics(n int, hours float64, now time.Time) []map[string]any {
	var out []map[string]any
	for i := range n {
		at := now.Add(-time.Duration(float64(n-1-i) / float64(max(n-1, 1)) * hours * float64(time.Hour)))
		v := 50 + 12*math.Sin(float64(i)/3)
		if i%10 == 3 {
			v += 25
		}
		out = append(out, map[string]any{"ts": at.Unix(), "value": math.Round(v*10) / 10, "baseline": 50.0, "predicted": 50 + 6*math.Sin(float64(i)/3),
			"upper": 64.0, "lower": 36.0, "anomaly": i%10 == 3, "site": []string{"paris", "lyon"}[i%2]})
	}
	return out
}

// browser starts headless Chromium for a test (skipping it when there is
// none) and returns a context for chromedp.Run.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		t.Skip("no chromium on this machine (make deps installs it)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.WindowSize(1400, 1000), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	// The page's script errors are the test's log lines.
	ctx, cancel2 := chromedp.NewContext(actx, chromedp.WithListener(func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			d := e.ExceptionDetails
			desc := d.Text
			if d.Exception != nil {
				desc += " " + d.Exception.Description
			}
			t.Logf("page script, line %d: %s", d.LineNumber, desc)
		case *runtime.EventConsoleAPICalled:
			for _, a := range e.Args {
				t.Logf("page console.%s: %s", e.Type, a.Value)
			}
		}
	}))
	t.Cleanup(cancel2)
	// The first run starts the browser, with no timeout of its own (a
	// timeout would stop the browser); the test's steps then have one.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	ctx, cancel3 := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(cancel3)
	return ctx
}

// login logs in at the portal as a tenant and waits for the list.
func login(t *testing.T, ctx context.Context, base string, cfg *bus.Config) {
	t.Helper()
	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/login"),
		chromedp.WaitVisible(chromedp.ID("user-input")),
		chromedp.SendKeys(chromedp.ID("user-input"), cfg.NATS.User),
		chromedp.SendKeys(chromedp.ID("password-input"), cfg.NATS.Password),
		chromedp.Click(chromedp.ID("login-submit")),
		chromedp.WaitVisible(chromedp.ID("logout")),
	)
	if err != nil {
		t.Fatalf("logging in as %s: %v", cfg.Tenant, err)
	}
}

// waitFor polls a JavaScript condition in the page until it holds.
func waitFor(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			html, _ := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("body")))
			t.Fatalf("timed out after 30s waiting for %s (%s)\n%.3000s", what, expr, html)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// attr reads an attribute of the first element a selector finds ("" when
// none).
func attr(t *testing.T, ctx context.Context, sel, name string) string {
	t.Helper()
	expr := fmt.Sprintf(`(function(){var e=document.querySelector(%q);return e&&e.getAttribute(%q)||""})()`, sel, name)
	out, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// startFabric starts tenants a and b, each with its portal.
func startFabric(t *testing.T) *fabrictest.Fabric {
	return fabrictest.Start(t, fabrictest.Options{Tenants: []string{"a", "b"}, Pods: []string{api.APIServer, api.Portal}})
}

// TestBrowserLiveShadedChart: tenant a logs in, opens a dashboard whose
// shaded chart reads a stream, and the chart grows as records are
// written; tenant b's login does not list a's dashboard, nor open it.
func TestBrowserLiveShadedChart(t *testing.T) {
	f := startFabric(t)
	base := f.Configs["a"].Portal.URL
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("tenant a's portal URL %q, want one on 127.0.0.1", base)
	}
	a := connect(t, f.Configs["a"])
	a.addStream(t, "rtt")
	a.addDashboard(t, `name: ops
label: Network operations
dashboard_sections:
  - title: Latency
    widgets:
      - widget_type: shaded_chart
        title: Round-trip time
        stream: rtt
        ts_column: ts
        value_column: value
        baseline_column: baseline
        predicted_column: predicted
        upperBound_column: upper
        lowerBound_column: lower
        anomalies_column: anomaly
        duration_hours: 6
        widget_id: rtt
`)
	ctx := browser(t)
	login(t, ctx, base, f.Configs["a"])
	listed, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("dashboards")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(listed, "ops") {
		t.Fatalf("tenant a's list does not show ops: %q", listed)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/d/ops")); err != nil {
		t.Fatal(err)
	}
	chart := `#widget-rtt`
	waitFor(t, ctx, "the chart's first view", `document.querySelector("#widget-rtt").getAttribute("data-updates") >= 1`)
	if got := attr(t, ctx, chart, "data-points"); got != "0" {
		t.Fatalf("points before any record: %q", got)
	}
	now := time.Now()
	a.write(t, "rtt", metrics(20, 2, now))
	waitFor(t, ctx, "20 points", `document.querySelector("#widget-rtt").getAttribute("data-points") === "20"`)
	a.write(t, "rtt", metrics(10, 0.5, now.Add(time.Minute)))
	waitFor(t, ctx, "30 points after more records", `document.querySelector("#widget-rtt").getAttribute("data-points") === "30"`)
	for sel, want := range map[string]string{
		`#widget-rtt path.series[data-series="value"]`:    "30",
		`#widget-rtt path.series[data-series="baseline"]`: "30",
		`#widget-rtt path.band`:                           "30",
	} {
		if got := attr(t, ctx, sel, "data-points"); got != want {
			t.Errorf("%s: data-points %q, want %s", sel, got, want)
		}
	}
	if got := attr(t, ctx, chart, "data-anomalies"); got != "3" {
		t.Errorf("anomalies drawn: %q, want 3 (records 3 and 13 of the first 20, 3 of the next 10)", got)
	}
	png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(chart)))
	if err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(t.TempDir(), "shaded-chart.png")
	if err := os.WriteFile(shot, png, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", shot, len(png))

	// Tenant b, in a browser of its own, at the same portal.
	bctx := browser(t)
	login(t, bctx, base, f.Configs["b"])
	html, err := chromedp.Run(bctx, chromedp.OuterHTML(chromedp.CSS("main")))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(html, `data-name="ops"`) || !strings.Contains(html, "no-dashboards") {
		t.Fatalf("tenant b's list shows a's dashboard:\n%s", html)
	}
	if err := chromedp.Do(bctx, chromedp.Navigate(base+"/d/ops")); err != nil {
		t.Fatal(err)
	}
	body, err := chromedp.Run(bctx, chromedp.Text(chromedp.CSS("body")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(body, `no dashboard named "ops"`) {
		t.Fatalf("tenant b opening a's dashboard: %q", body)
	}
}
