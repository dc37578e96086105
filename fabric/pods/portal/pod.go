// Package portal is the portal pod: it serves a tenant's dashboards,
// dashboard groups and apps to a browser over HTTP(S), on 127.0.0.1
// unless told otherwise. A user logs in with a tenant's NATS user and
// password; the login is checked by connecting to the fabric with them,
// and the session's reads go through that connection, so a session
// reaches its own tenant's artifacts and streams and no other's. Each
// dashboard is drawn from its definition (SPEC 2.4) by the page's
// script, static/portal.js, which draws its charts as SVG (with data-*
// attributes that say what is drawn); widgets read their streams live,
// as server-sent events the portal batches and downsamples.
package portal

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/pods/pod"
	"golang.org/x/net/netutil"
)

// PodOptions configure the portal pod.
type PodOptions struct {
	// Listen is the address the server binds (host:port; default
	// DefaultListen).
	Listen string
	// CertFile and KeyFile, when set, make the portal serve HTTPS.
	CertFile, KeyFile string
	// Limits fence the users (zero fields: DefaultLimits).
	Limits Limits
	// MaxConnections bounds the connections the server holds at once
	// (0: DefaultMaxConnections).
	MaxConnections int
	// Reserved, when set, holds Listen already bound (Local binds the
	// port it chooses); the pod's first start serves on it.
	Reserved *pod.Reservation
}

// DefaultListen is where the portal listens unless told: the loopback
// interface only.
const DefaultListen = "127.0.0.1:8480"

// DefaultMaxConnections bounds the portal's connections unless set.
const DefaultMaxConnections = 512

// Serve makes p the portal pod of the fabric cfg reaches: it serves on
// o.Listen until p stops (open pages are cut, sessions closed).
func Serve(p *pod.Pod, cfg *bus.Config, o PodOptions) error {
	if o.Listen == "" {
		o.Listen = DefaultListen
	}
	if (o.CertFile == "") != (o.KeyFile == "") {
		return errors.New("the portal needs both a certificate and a key file to serve HTTPS")
	}
	ln, err := o.Reserved.Listen(o.Listen)
	if err != nil {
		return fmt.Errorf("portal: %w", err)
	}
	if o.MaxConnections <= 0 {
		o.MaxConnections = DefaultMaxConnections
	}
	ln = netutil.LimitListener(ln, o.MaxConnections)
	secure := o.CertFile != ""
	s := New(Options{Config: cfg, Limits: o.Limits, Secure: secure,
		Logf: func(format string, args ...any) { p.Infof(api.LoggerPortal, format, args...) }})
	p.SetLimits(limitRows(s.o.Limits, o.MaxConnections))
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	served := make(chan struct{})
	go func() {
		defer close(served)
		var err error
		if secure {
			err = srv.ServeTLS(ln, o.CertFile, o.KeyFile)
		} else {
			err = srv.Serve(ln)
		}
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			p.Warnf(api.LoggerPortal, "portal server: %v", err)
		}
	}()
	stopJanitor := make(chan struct{})
	go func() {
		t := time.NewTicker(time.Minute)
		defer t.Stop()
		for {
			select {
			case <-stopJanitor:
				return
			case <-t.C:
				s.ExpireIdle()
			}
		}
	}()
	scheme := "http"
	if secure {
		scheme = "https"
	}
	where := scheme + "://" + ln.Addr().String()
	p.Infof(api.LoggerPortal, "portal on %s", where)
	p.AddHealthCheck("portal", func(ctx context.Context) (string, error) {
		return fmt.Sprintf("serving on %s, %d session(s)", where, s.Sessions()), nil
	})
	p.OnStop(func() {
		close(stopJanitor)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		// Live widgets never end on their own: Close cuts them.
		if err := srv.Shutdown(ctx); err != nil {
			srv.Close()
		}
		<-served
		s.Close()
	})
	return nil
}

// limitRows are the portal's limits as the limits command lists them.
func limitRows(l Limits, conns int) []api.LimitRow {
	const fixed = "fixed"
	itoa := strconv.Itoa
	return []api.LimitRow{
		{Scope: "portal", Limit: "max_sessions", Value: itoa(l.MaxSessions), SetBy: fixed},
		{Scope: "portal", Limit: "max_sessions_per_user", Value: itoa(l.MaxSessionsPerUser), SetBy: fixed},
		{Scope: "portal", Limit: "max_live_pages_per_session", Value: itoa(l.MaxLivePerSession), SetBy: fixed},
		{Scope: "portal", Limit: "max_live_pages", Value: itoa(l.MaxLive), SetBy: fixed},
		{Scope: "portal", Limit: "max_live_widgets_per_page", Value: itoa(l.MaxWidgetsPerPage), SetBy: fixed},
		{Scope: "portal", Limit: "max_points", Value: itoa(l.MaxPoints), SetBy: "fixed; a widget's downsampling asks fewer"},
		{Scope: "portal", Limit: "max_buffered_rows", Value: itoa(l.MaxBufferedRows), SetBy: fixed},
		{Scope: "portal", Limit: "max_dataset_rows", Value: itoa(l.MaxDatasetRows), SetBy: fixed},
		{Scope: "portal", Limit: "idle_session_minutes", Value: strconv.FormatFloat(l.IdleTimeout.Minutes(), 'f', -1, 64), SetBy: fixed},
		{Scope: "portal", Limit: "login_failures_per_minute", Value: itoa(l.LoginFailures), SetBy: fixed},
		{Scope: "portal", Limit: "max_connections", Value: itoa(conns), SetBy: "fixed; more wait in the kernel's queue"},
	}
}

// Local returns the portal of a tenant of a local fabric, on 127.0.0.1:
// on the port of last (the URL of the last run) when it is free, else on
// a free one, and the URL that reaches it.
func Local(last string) (PodOptions, string, error) {
	var ln net.Listener
	if u, err := url.Parse(last); err == nil && u.Hostname() == "127.0.0.1" {
		if port, err := strconv.Atoi(u.Port()); err == nil && port > 0 {
			ln, _ = net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		}
	}
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			return PodOptions{}, "", fmt.Errorf("no free port for the portal: %w", err)
		}
	}
	listen := ln.Addr().String()
	return PodOptions{Listen: listen, Reserved: pod.Reserve(ln)}, "http://" + listen, nil
}
