package probes

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestRun runs each probe type against real servers on 127.0.0.1: the
// statuses, the reasons and the fields a result carries.
func TestRun(t *testing.T) {
	big := strings.Repeat("x", 2*MaxBodyBytes) + "TAIL"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			_, _ = w.Write([]byte("service healthy"))
		case "/slow":
			time.Sleep(300 * time.Millisecond)
			_, _ = w.Write([]byte("late"))
		case "/moved":
			http.Redirect(w, r, "http://169.254.169.254/", http.StatusFound)
		case "/big":
			_, _ = w.Write([]byte(big))
		default:
			http.Error(w, "nope", http.StatusInternalServerError)
		}
	}))
	defer srv.Close()
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("secure")) }))
	defer tlsSrv.Close()
	tlsAddr := strings.TrimPrefix(tlsSrv.URL, "https://")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	// The test server's certificate is valid until 2084: "now" is moved
	// to put it near and past its end.
	expiry := tlsSrv.Certificate().NotAfter
	at := func(d time.Duration) func() time.Time { return func() time.Time { return expiry.Add(-d) } }
	base := Check{Profile: "p", Probe: "x", Method: "GET", Timeout: 2 * time.Second, WarnDays: 14}
	with := func(f func(*Check)) Check { c := base; f(&c); return c }
	cases := []struct {
		name       string
		c          Check
		now        func() time.Time
		guard      Guard
		status     string
		reason     string
		httpStatus int
	}{
		{"http up", with(func(c *Check) { c.Type, c.Target = TypeHTTP, srv.URL+"/ok" }), nil, Guard{}, StatusUp, "status 200", 200},
		{"http body matches", with(func(c *Check) {
			c.Type, c.Target, c.BodyRegex = TypeHTTP, srv.URL+"/ok", regexp.MustCompile("health(y|ier)")
		}), nil, Guard{}, StatusUp, "status 200", 200},
		{"http body does not match", with(func(c *Check) {
			c.Type, c.Target, c.BodyRegex = TypeHTTP, srv.URL+"/ok", regexp.MustCompile("^down")
		}), nil, Guard{}, StatusDown, `status 200, but the body (first 15 bytes read) does not match "^down"`, 200},
		{"http body read up to the bound", with(func(c *Check) {
			c.Type, c.Target, c.BodyRegex = TypeHTTP, srv.URL+"/big", regexp.MustCompile("TAIL")
		}), nil, Guard{}, StatusDown, "first 1048576 bytes read", 200},
		{"http status 500", with(func(c *Check) { c.Type, c.Target = TypeHTTP, srv.URL+"/err" }), nil, Guard{}, StatusDown, "status 500, expected 2xx or 3xx", 500},
		{"http expected status", with(func(c *Check) { c.Type, c.Target, c.ExpectStatus = TypeHTTP, srv.URL+"/err", []int{500} }), nil, Guard{}, StatusUp, "status 500", 500},
		{"http redirect not followed", with(func(c *Check) { c.Type, c.Target = TypeHTTP, srv.URL+"/moved" }), nil, Guard{}, StatusUp, "status 302", 302},
		{"http slow", with(func(c *Check) { c.Type, c.Target, c.MaxLatency = TypeHTTP, srv.URL+"/slow", 100*time.Millisecond }), nil, Guard{}, StatusWarning, "slower than 100 ms", 200},
		{"http timeout", with(func(c *Check) { c.Type, c.Target, c.Timeout = TypeHTTP, srv.URL+"/slow", 100*time.Millisecond }), nil, Guard{}, StatusDown, "no answer within 100ms", 0},
		{"http refused", with(func(c *Check) { c.Type, c.Target = TypeHTTP, "http://"+closed+"/" }), nil, Guard{}, StatusDown, "connection refused", 0},
		{"https untrusted", with(func(c *Check) { c.Type, c.Target = TypeHTTP, tlsSrv.URL }), nil, Guard{}, StatusDown, "certificate", 0},
		{"https insecure", with(func(c *Check) { c.Type, c.Target, c.Insecure = TypeHTTP, tlsSrv.URL, true }), nil, Guard{}, StatusUp, "status 200", 200},
		{"tcp up", with(func(c *Check) { c.Type, c.Target = TypeTCP, strings.TrimPrefix(srv.URL, "http://") }), nil, Guard{}, StatusUp, "connected", 0},
		{"tcp refused", with(func(c *Check) { c.Type, c.Target = TypeTCP, closed }), nil, Guard{}, StatusDown, "connection refused", 0},
		{"tcp bus refused", with(func(c *Check) { c.Type, c.Target = TypeTCP, strings.TrimPrefix(srv.URL, "http://") }), nil,
			Guard{Refused: []string{strings.TrimPrefix(srv.URL, "http://")}}, StatusDown, "a probe may not reach the fabric's message bus", 0},
		{"link-local refused", with(func(c *Check) { c.Type, c.Target = TypeTCP, "169.254.169.254:80" }), nil, Guard{}, StatusDown, "may not reach link-local addresses", 0},
		{"tls far", with(func(c *Check) { c.Type, c.Target, c.Insecure = TypeTLS, tlsAddr, true }), at(100 * 24 * time.Hour), Guard{}, StatusUp, "the certificate expires in 100 days", 0},
		{"tls near", with(func(c *Check) { c.Type, c.Target, c.Insecure = TypeTLS, tlsAddr, true }), at(3*24*time.Hour + time.Hour), Guard{}, StatusWarning, "expires in 3 days", 0},
		{"tls expired", with(func(c *Check) { c.Type, c.Target, c.Insecure = TypeTLS, tlsAddr, true }), at(-time.Hour), Guard{}, StatusDown, "the certificate expired on", 0},
		{"tls untrusted", with(func(c *Check) { c.Type, c.Target = TypeTLS, tlsAddr }), at(100 * 24 * time.Hour), Guard{}, StatusDown, "certificate not trusted", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := Run(context.Background(), tc.c, tc.guard, tc.now)
			if r.Status != tc.status || !strings.Contains(r.Reason, tc.reason) || r.HTTPStatus != tc.httpStatus {
				t.Errorf("got %s %q (http %d), want %s %q (http %d)", r.Status, r.Reason, r.HTTPStatus, tc.status, tc.reason, tc.httpStatus)
			}
			if tc.c.Type == TypeTLS && r.Status != StatusDown && (r.DaysLeft == nil || r.CertExpires == "") {
				t.Errorf("no certificate dates: %+v", r)
			}
		})
	}
}

// TestChecks: a profile's checks against its stack, and each field's
// refusal naming the probe.
func TestChecks(t *testing.T) {
	st := Stack{Name: "web", Components: []Component{
		{Name: "front", Host: "10.0.0.1", Port: 8080}, {Name: "secure", Host: "web.test", Port: 443}, {Name: "idle"}}}
	p, err := ParseProfile([]byte(`{"name": "p", "stack": "web", "probes": [
		{"name": "all", "type": "http", "path": "health"},
		{"name": "one", "type": "tls", "component": "secure", "interval_seconds": 30},
		{"name": "own", "type": "tcp", "target": "db.test:5432"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	cs, err := p.Checks(st)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cs {
		got = append(got, c.Key()+" "+c.Target+" "+c.Interval.String())
	}
	want := []string{"p/all/front http://10.0.0.1:8080/health 1m0s", "p/all/secure https://web.test:443/health 1m0s",
		"p/one/secure web.test:443 30s", "p/own/ db.test:5432 1m0s"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("checks:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	many := `{"name": "p", "stack": "web", "probes": [` + strings.Repeat(`{"name": "x", "type": "tcp"},`, MaxProbes) + `{"name": "y", "type": "tcp"}]}`
	for _, c := range []struct{ doc, want string }{
		{`{"probes": [{"name": "a", "type": "http", "component": "nope"}]}`, `probes[0] (a): component: stack "" has no component "nope"`},
		{`{"probes": [{"name": "a", "type": "http", "component": "idle"}]}`, `probes[0] (a): component: "idle" has no host to probe`},
		{`{"probes": [{"name": "a", "type": "http", "target": "ftp://x/"}]}`, `probes[0] (a): target: "ftp://x/" is not an http or https URL`},
		{`{"probes": [{"name": "a", "type": "tcp", "target": "x"}]}`, `probes[0] (a): target: "x" is not host:port`},
		{`{"probes": [{"name": "a", "type": "tcp", "target": "x:0"}]}`, `the port is 1 to 65535`},
		{`{"probes": [{"name": "a", "type": "http", "target": "http://x/", "component": "front"}]}`, `give target or component, not both`},
		{`{"probes": [{"name": "a", "type": "http", "body_regex": "("}]}`, `probes[0] (a): body_regex: error parsing regexp`},
		{`{"probes": [{"name": "a", "type": "tcp", "body_regex": "x"}]}`, `body_regex is for http probes`},
		{`{"probes": [{"name": "a", "type": "http", "interval_seconds": 1}]}`, `interval_seconds: 1; it is 5 to 86400`},
		{`{"probes": [{"name": "a", "type": "http", "timeout_seconds": 31}]}`, `timeout_seconds: 31; it is 1 to 30`},
		{`{"probes": [{"name": "a", "type": "http", "expect_status": [42]}]}`, `expect_status: 42 is no HTTP status`},
		{`{"probes": [{"name": "a", "type": "http", "method": "POST"}]}`, `a probe sends GET or HEAD`},
		{`{"probes": [{"name": "a", "type": "http"}, {"name": "a", "type": "tcp"}]}`, `probes[1] (a): a second probe named "a"`},
		{`{"schedule": "@hourly", "probes": [{"name": "a", "type": "http"}]}`, `schedule: "@hourly" is not a five-field cron expression`},
		{many, "probes: 51 probes; a profile has at most 50"},
		{`{"probes": [{"name": "a", "type": "http", "body_regex": "` + strings.Repeat("a", MaxRegexLen+1) + `"}]}`, `body_regex: 1025 characters; at most 1024`},
		{`{"schedule": "CRON_TZ=UTC", "probes": [{"name": "a", "type": "http"}]}`, `the time zone is not followed by the fields`},
	} {
		p, err := ParseProfile([]byte(c.doc))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Checks(st); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.doc, err, c.want)
		}
	}
	// A probe of every component of a large stack is bounded too.
	var big Stack
	for i := 0; i <= MaxChecks; i++ {
		big.Components = append(big.Components, Component{Name: strings.Repeat("c", i+1), Host: "h"})
	}
	p, _ = ParseProfile([]byte(`{"name": "p", "probes": [{"name": "all", "type": "tcp"}]}`))
	if _, err := p.Checks(big); err == nil || !strings.Contains(err.Error(), "more than 200 checks") {
		t.Errorf("a probe of %d components: %v", len(big.Components), err)
	}
}
