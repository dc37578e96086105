package portal_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/fabricops/fabric/fabric/infra/tenant/tables"
	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/fabricops/fabric/fabric/lib/pack"
	"github.com/fabricops/fabric/fabric/pods/portal"
)

// testPortal is a portal server over a test fabric of tenants a and b,
// with limits the test chooses, and what it logged.
type testPortal struct {
	f    *fabrictest.Fabric
	s    *portal.Server
	url  string
	mu   sync.Mutex
	logs []string
	now  time.Time
}

func newTestPortal(t *testing.T, l portal.Limits) *testPortal {
	t.Helper()
	f := fabrictest.Start(t, fabrictest.Options{Tenants: []string{"a", "b"}, Pods: []string{api.APIServer}})
	tp := &testPortal{f: f, now: time.Now()}
	tp.s = portal.New(portal.Options{Config: f.Configs["a"], Limits: l, Batch: 50 * time.Millisecond,
		Now: func() time.Time { tp.mu.Lock(); defer tp.mu.Unlock(); return tp.now },
		Logf: func(format string, args ...any) {
			tp.mu.Lock()
			tp.logs = append(tp.logs, fmt.Sprintf(format, args...))
			tp.mu.Unlock()
		}})
	srv := httptest.NewServer(tp.s.Handler())
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close(); tp.s.Close() })
	tp.url = srv.URL
	return tp
}

func (tp *testPortal) advance(d time.Duration) {
	tp.mu.Lock()
	tp.now = tp.now.Add(d)
	tp.mu.Unlock()
}

// browserClient is an HTTP client with a cookie jar that does not follow
// redirects (the tests look at them).
func browserClient(t *testing.T) *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// loginAs posts the login form and returns the response's status.
func (tp *testPortal) loginAs(t *testing.T, c *http.Client, user, password string) (int, *http.Response) {
	t.Helper()
	resp, err := c.PostForm(tp.url+"/login", url.Values{"user": {user}, "password": {password}, "next": {"/"}})
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp
}

func creds(cfg *bus.Config) (string, string) { return cfg.NATS.User, cfg.NATS.Password }

// TestLoginsRateLimited: failed logins from one address are limited, a
// right password included once the limit is hit; no log line holds a
// password; a good login sets an HttpOnly, SameSite=Strict cookie.
func TestLoginsRateLimited(t *testing.T) {
	tp := newTestPortal(t, portal.Limits{LoginFailures: 3, LoginWindow: time.Minute})
	user, password := creds(tp.f.Configs["a"])
	c := browserClient(t)
	for i := range 3 {
		if code, _ := tp.loginAs(t, c, user, "wrong-password-"+fmt.Sprint(i)); code != http.StatusUnauthorized {
			t.Fatalf("wrong password %d: status %d, want 401", i, code)
		}
	}
	if code, _ := tp.loginAs(t, c, user, password); code != http.StatusTooManyRequests {
		t.Fatalf("a login after 3 failures: status %d, want 429", code)
	}
	tp.advance(2 * time.Minute)
	code, resp := tp.loginAs(t, c, user, password)
	if code != http.StatusSeeOther {
		t.Fatalf("a login once the failures are old: status %d, want 303", code)
	}
	var cookie *http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name == "fabric_portal" {
			cookie = ck
		}
	}
	if cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode || len(cookie.Value) < 40 {
		t.Fatalf("session cookie %+v: want HttpOnly, SameSite=Strict, a long random id", cookie)
	}
	tp.mu.Lock()
	defer tp.mu.Unlock()
	for _, l := range tp.logs {
		if strings.Contains(l, password) || strings.Contains(l, "wrong-password") {
			t.Fatalf("a log line holds a password: %q", l)
		}
	}
}

// TestSessionLimits: a user holds at most MaxSessionsPerUser sessions
// (logging out frees one); an idle session expires and its cookie then
// leads to the login page.
func TestSessionLimits(t *testing.T) {
	tp := newTestPortal(t, portal.Limits{MaxSessionsPerUser: 2, IdleTimeout: time.Minute})
	user, password := creds(tp.f.Configs["a"])
	clients := []*http.Client{browserClient(t), browserClient(t), browserClient(t)}
	for i, c := range clients[:2] {
		if code, _ := tp.loginAs(t, c, user, password); code != http.StatusSeeOther {
			t.Fatalf("login %d: status %d", i, code)
		}
	}
	if code, _ := tp.loginAs(t, clients[2], user, password); code != http.StatusTooManyRequests {
		t.Fatalf("a third session: status %d, want 429", code)
	}
	resp, err := clients[0].PostForm(tp.url+"/logout", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if code, _ := tp.loginAs(t, clients[2], user, password); code != http.StatusSeeOther {
		t.Fatalf("a session after a logout: status %d", code)
	}
	if n := tp.s.Sessions(); n != 2 {
		t.Fatalf("%d sessions, want 2", n)
	}
	tp.advance(2 * time.Minute)
	tp.s.ExpireIdle()
	if n := tp.s.Sessions(); n != 0 {
		t.Fatalf("%d sessions after they idled past the limit, want 0", n)
	}
	resp, err = clients[1].Get(tp.url + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/login") {
		t.Fatalf("an expired session's page: %d %s, want the login page", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, err = clients[1].Get(tp.url + "/api/dashboards")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("the API without a session: %d, want 401", resp.StatusCode)
	}
}

// event is a server-sent event.
type event struct {
	name string
	data map[string]any
}

// openLive opens a dashboard's live connection and returns its events.
func openLive(t *testing.T, ctx context.Context, c *http.Client, u string) (int, <-chan event) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", u, nil)
	cc := *c
	cc.Timeout = 0
	resp, err := cc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan event, 100)
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		close(ch)
		return resp.StatusCode, ch
	}
	go func() {
		defer close(ch)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 8<<20)
		var ev event
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				ev.name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				_ = json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev.data)
			case line == "" && ev.name != "":
				select {
				case ch <- ev:
				case <-ctx.Done():
					return
				}
				ev = event{}
			}
		}
	}()
	return resp.StatusCode, ch
}

// next returns the next event matching ok, within 20s.
func next(t *testing.T, ch <-chan event, ok func(event) bool) event {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case ev, open := <-ch:
			if !open {
				t.Fatal("the live connection ended")
			}
			if ok(ev) {
				return ev
			}
		case <-timeout:
			t.Fatal("timed out after 20s waiting for an event")
		}
	}
}

// TestLiveLimits: a session opens at most MaxLivePerSession live pages;
// a page draws at most MaxWidgetsPerPage live widgets (the others get a
// failure); a live widget keeps at most MaxBufferedRows rows of its
// stream, and a dataset widget reads at most MaxDatasetRows rows.
func TestLiveLimits(t *testing.T) {
	tp := newTestPortal(t, portal.Limits{MaxLivePerSession: 1, MaxWidgetsPerPage: 2, MaxBufferedRows: 10, MaxDatasetRows: 5})
	a := connect(t, tp.f.Configs["a"])
	a.addStream(t, "m")
	a.write(t, "m", metrics(50, 1, time.Now()))
	nc := a.nc
	csv := "x,y\n" + strings.Repeat("1,2\n", 20)
	src, err := frame.OpenReader(strings.NewReader(csv), frame.CSV, frame.NoCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := tables.New(tenant.New(nc)).AddDataset(context.Background(), "ds", "", src, frame.CSV); err != nil {
		t.Fatal(err)
	}
	a.addDashboard(t, `name: big
dashboard_sections:
  - widgets:
      - {widget_type: line_chart, stream: m, ts_column: ts, columns: [value]}
      - {widget_type: table, stream: ds, columns: [x, y]}
      - {widget_type: counter, stream: m}
`)
	c := browserClient(t)
	user, password := creds(tp.f.Configs["a"])
	if code, _ := tp.loginAs(t, c, user, password); code != http.StatusSeeOther {
		t.Fatalf("login: %d", code)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	code, events := openLive(t, ctx, c, tp.url+"/live/big")
	if code != http.StatusOK {
		t.Fatalf("live page: %d", code)
	}
	if code, _ := openLive(t, ctx, c, tp.url+"/live/big"); code != http.StatusTooManyRequests {
		t.Fatalf("a second live page of the session: %d, want 429", code)
	}
	seen := map[string]map[string]any{}
	for len(seen) < 3 {
		ev := next(t, events, func(event) bool { return true })
		w, _ := ev.data["w"].(string)
		if ev.name == "failure" {
			seen[w] = map[string]any{"error": ev.data["error"]}
			continue
		}
		seen[w], _ = ev.data["view"].(map[string]any)
		if w == "0.0" && seen[w]["total"].(float64) < 10 {
			delete(seen, w) // the first view may come before every record was read
		}
	}
	if v := seen["0.0"]; v["total"].(float64) != 10 || v["capped"] != true {
		t.Errorf("stream widget of 50 records with 10 rows buffered: total %v, capped %v", v["total"], v["capped"])
	}
	if v := seen["0.1"]; v["total"].(float64) != 5 || v["capped"] != true || v["source"] != "dataset" {
		t.Errorf("dataset widget of 20 rows read up to 5: %v", v)
	}
	if e, _ := seen["0.2"]["error"].(string); !strings.Contains(e, "at most 2 live widgets") {
		t.Errorf("the third widget of a page of at most 2: %v", seen["0.2"])
	}
}

// TestTenantFence: a session reads its own tenant's dashboards and
// streams: tenant b's session lists none of a's, and cannot open a's
// dashboard, live or not.
func TestTenantFence(t *testing.T) {
	tp := newTestPortal(t, portal.Limits{})
	a := connect(t, tp.f.Configs["a"])
	a.addStream(t, "m")
	a.addDashboard(t, "name: secret\ndashboard_sections:\n  - widgets:\n      - {widget_type: counter, stream: m}\n")
	c := browserClient(t)
	user, password := creds(tp.f.Configs["b"])
	if code, _ := tp.loginAs(t, c, user, password); code != http.StatusSeeOther {
		t.Fatalf("b's login: %d", code)
	}
	resp, err := c.Get(tp.url + "/api/dashboards")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if strings.Contains(string(body), "secret") || resp.StatusCode != http.StatusOK {
		t.Fatalf("b's list: %d %s", resp.StatusCode, body)
	}
	for _, path := range []string{"/d/secret", "/live/secret"} {
		resp, err := c.Get(tp.url + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("b opening a's %s: %d, want 404", path, resp.StatusCode)
		}
	}
}

// TestPackReports: a pack compare report published for the portal opens
// at the URL publishing returned, for its tenant only; the portal keeps
// the newest api.MaxPackReports of them.
func TestPackReports(t *testing.T) {
	tp := newTestPortal(t, portal.Limits{})
	cfg := *tp.f.Configs["a"]
	cfg.Portal.URL = tp.url
	c, err := client.Connect(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := pack.Compare(pack.Side{PackName: "netops", PackVersion: "1.1.0", Items: []pack.Item{{Type: "dashboard", Name: "ops", Checksum: "a", Text: []byte("label: New\n")}}},
		pack.Side{PackName: "netops", PackVersion: "1.0.0", Items: []pack.Item{{Type: "dashboard", Name: "ops", Checksum: "b", Text: []byte("label: Old\n")}}}, pack.Summary{})
	var urls []string
	for range api.MaxPackReports + 1 {
		u, err := c.PublishPackReport(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		urls = append(urls, u)
	}
	if !strings.HasPrefix(urls[0], tp.url+"/reports/") || !strings.HasSuffix(urls[0], "-netops-1.1.0.html") {
		t.Fatalf("report URL %q", urls[0])
	}
	get := func(hc *http.Client, u string) (int, string, http.Header) {
		resp, err := hc.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}
	a := browserClient(t)
	user, password := creds(tp.f.Configs["a"])
	if code, _ := tp.loginAs(t, a, user, password); code != http.StatusSeeOther {
		t.Fatalf("a's login: %d", code)
	}
	code, body, h := get(a, urls[len(urls)-1])
	if code != http.StatusOK || !strings.Contains(body, "label: Old") || !strings.Contains(h.Get("Content-Security-Policy"), "sandbox") {
		t.Fatalf("the newest report: %d %s\n%.300s", code, h.Get("Content-Security-Policy"), body)
	}
	if code, _, _ := get(a, urls[0]); code != http.StatusNotFound {
		t.Errorf("the oldest of %d reports: %d, want 404 (the portal keeps %d)", len(urls), code, api.MaxPackReports)
	}
	if _, list, _ := get(a, tp.url+"/"); strings.Count(list, `class="report"`) != api.MaxPackReports {
		t.Errorf("the list shows %d reports, want %d", strings.Count(list, `class="report"`), api.MaxPackReports)
	}
	b := browserClient(t)
	user, password = creds(tp.f.Configs["b"])
	if code, _ := tp.loginAs(t, b, user, password); code != http.StatusSeeOther {
		t.Fatalf("b's login: %d", code)
	}
	if code, _, _ := get(b, urls[len(urls)-1]); code != http.StatusNotFound {
		t.Errorf("b opening a's report: %d, want 404", code)
	}
}

// TestLoginRedirects: after a login the portal sends the browser to the
// page it asked for, and never off the portal; over HTTPS the session
// cookie is Secure.
func TestLoginRedirects(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	s := portal.New(portal.Options{Config: f.Configs["a"], Secure: true})
	srv := httptest.NewTLSServer(s.Handler())
	t.Cleanup(func() { srv.Close(); s.Close() })
	user, password := creds(f.Configs["a"])
	for _, c := range []struct{ next, want string }{
		{"/d/ops?page=2", "/d/ops?page=2"},
		{"//evil.example/", "/"},
		{"https://evil.example/", "/"},
		{`/\evil.example`, "/"},
		{"", "/"},
	} {
		hc := srv.Client()
		hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		resp, err := hc.PostForm(srv.URL+"/login", url.Values{"user": {user}, "password": {password}, "next": {c.next}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || got != c.want {
			t.Errorf("next %q: %d to %q, want %q", c.next, resp.StatusCode, got, c.want)
		}
		for _, ck := range resp.Cookies() {
			if ck.Name == "fabric_portal" && !ck.Secure {
				t.Errorf("the session cookie over HTTPS is not Secure")
			}
		}
		if cookies := resp.Cookies(); len(cookies) == 1 {
			// Log out, so that the sessions do not pile up.
			req, _ := http.NewRequest("POST", srv.URL+"/logout", nil)
			req.AddCookie(cookies[0])
			if r, err := hc.Do(req); err == nil {
				r.Body.Close()
			}
		}
	}
	if n := s.Sessions(); n != 0 {
		t.Errorf("%d sessions after every logout", n)
	}
}
