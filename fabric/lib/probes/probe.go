// Package probes defines and runs the probes of synthetic profiles:
// HTTP(S) (status, body regex, latency), TCP connect and TLS certificate
// expiry, each against a target the profile gives or against the
// components of its stack (package fabric/infra/synthetics keeps their
// results; the workers run them).
//
// What a probe may reach: it is a network request from the tenant's
// worker, like a bot's, and reports only reachability (status code,
// latency, whether the body matched, certificate dates), never what it
// read. It may reach any host and port the worker's network reaches,
// loopback included, except link-local addresses (cloud metadata
// services live there), unspecified and multicast addresses, and the
// fabric's own message bus (the NATS server the worker is connected to).
// The address is checked after name resolution, on the connection itself.
package probes

import (
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// The fences of a tenant's probes.
const (
	// MaxProbes bounds the probes of a profile.
	MaxProbes = 50
	// MaxChecks bounds the checks a profile makes (a probe of a stack's
	// components is one check per component).
	MaxChecks = 200
	// MinInterval and MaxInterval bound a probe's interval;
	// DefaultInterval is the interval of a probe that gives none.
	MinInterval     = 5 * time.Second
	MaxInterval     = 24 * time.Hour
	DefaultInterval = 60 * time.Second
	// MaxTimeout bounds a probe's time; DefaultTimeout is that of a
	// probe that gives none.
	MaxTimeout     = 30 * time.Second
	DefaultTimeout = 10 * time.Second
	// MaxBodyBytes is how much of a response an HTTP probe reads (what
	// its body regex is matched against).
	MaxBodyBytes = 1 << 20
	// MaxRegexLen bounds a body regex.
	MaxRegexLen = 1024
	// DefaultWarnDays is how many days before its certificate expires a
	// TLS probe warns, unless it says otherwise.
	DefaultWarnDays = 14
)

// Probe types.
const (
	TypeHTTP = "http"
	TypeTCP  = "tcp"
	TypeTLS  = "tls"
)

// Types are the probe types.
var Types = []string{TypeHTTP, TypeTCP, TypeTLS}

// Check is one thing a worker probes: a probe of a profile against one
// target (a component of the stack, or the probe's own target).
type Check struct {
	Profile   string
	Stack     string
	Probe     string
	Component string // "" for a probe's own target
	Type      string
	// Target is a URL (http) or host:port (tcp, tls).
	Target       string
	Method       string
	ExpectStatus []int
	BodyRegex    *regexp.Regexp
	MaxLatency   time.Duration // 0: none
	WarnDays     int
	Insecure     bool
	Interval     time.Duration
	// Schedule, when set, says when the check runs instead of Interval.
	Schedule cron.Schedule
	Timeout  time.Duration
}

// Key names a check in the status bucket (with the site it runs at).
func (c Check) Key() string {
	return strings.Join([]string{c.Profile, c.Probe, c.Component}, "/")
}

// Next is when a check that last ran at t runs again.
func (c Check) Next(t time.Time) time.Time {
	if c.Schedule != nil {
		return c.Schedule.Next(t)
	}
	return t.Add(c.Interval)
}

// Profile is what a worker reads of a synthetic profile.
type Profile struct {
	Name        string   `json:"name"`
	Stack       string   `json:"stack"`
	Schedule    string   `json:"schedule"`
	Sites       []string `json:"sites"`
	SiteProfile string   `json:"site_profile"`
	Enabled     *bool    `json:"enabled"`
	Probes      []struct {
		Name            string `json:"name"`
		Type            string `json:"type"`
		Target          string `json:"target"`
		Component       string `json:"component"`
		Path            string `json:"path"`
		Scheme          string `json:"scheme"`
		Method          string `json:"method"`
		ExpectStatus    []int  `json:"expect_status"`
		BodyRegex       string `json:"body_regex"`
		MaxLatencyMS    int    `json:"max_latency_ms"`
		WarnDays        *int   `json:"warn_days"`
		Insecure        bool   `json:"insecure"`
		IntervalSeconds int    `json:"interval_seconds"`
		TimeoutSeconds  int    `json:"timeout_seconds"`
	} `json:"probes"`
}

// On reports whether the profile is enabled (it is unless it says not).
func (p Profile) On() bool { return p.Enabled == nil || *p.Enabled }

// Component is what a probe reads of a stack's component.
type Component struct {
	Name string `json:"name"`
	Type string `json:"type"`
	Host string `json:"host"`
	Port int    `json:"port"`
}

// Stack is what a probe reads of a stack.
type Stack struct {
	Name       string      `json:"name"`
	Components []Component `json:"components"`
}

// ParseProfile reads a profile's JSON.
func ParseProfile(doc []byte) (Profile, error) {
	var p Profile
	err := json.Unmarshal(doc, &p)
	return p, err
}

// ParseStack reads a stack's JSON.
func ParseStack(doc []byte) (Stack, error) {
	var s Stack
	err := json.Unmarshal(doc, &s)
	return s, err
}

// Checks returns the checks of a profile against its stack. A probe with
// a target checks it; one naming a component checks that component's
// host and port; one with neither checks every component of the stack
// that has a host. The error names the probe and the field.
func (p Profile) Checks(st Stack) ([]Check, error) {
	if len(p.Probes) > MaxProbes {
		return nil, fmt.Errorf("probes: %d probes; a profile has at most %d", len(p.Probes), MaxProbes)
	}
	var sched cron.Schedule
	if p.Schedule != "" {
		s, err := parseCron(p.Schedule)
		if err != nil {
			return nil, fmt.Errorf("schedule: %v", err)
		}
		sched = s
	}
	comps := map[string]Component{}
	for _, c := range st.Components {
		comps[c.Name] = c
	}
	var out []Check
	seen := map[string]bool{}
	for i, pr := range p.Probes {
		where := fmt.Sprintf("probes[%d] (%s)", i, pr.Name)
		if seen[pr.Name] {
			return nil, fmt.Errorf("%s: a second probe named %q", where, pr.Name)
		}
		seen[pr.Name] = true
		c := Check{Profile: p.Name, Stack: p.Stack, Probe: pr.Name, Type: pr.Type, Method: "GET", ExpectStatus: pr.ExpectStatus,
			Insecure: pr.Insecure, WarnDays: DefaultWarnDays, Interval: DefaultInterval, Timeout: DefaultTimeout}
		if pr.Method != "" {
			if m := strings.ToUpper(pr.Method); m == "GET" || m == "HEAD" {
				c.Method = m
			} else {
				return nil, fmt.Errorf("%s: method: %q; a probe sends GET or HEAD", where, pr.Method)
			}
		}
		if pr.IntervalSeconds != 0 {
			c.Interval = time.Duration(pr.IntervalSeconds) * time.Second
			if c.Interval < MinInterval || c.Interval > MaxInterval {
				return nil, fmt.Errorf("%s: interval_seconds: %d; it is %d to %d", where, pr.IntervalSeconds, int(MinInterval.Seconds()), int(MaxInterval.Seconds()))
			}
		} else {
			c.Schedule = sched
		}
		if pr.TimeoutSeconds != 0 {
			c.Timeout = time.Duration(pr.TimeoutSeconds) * time.Second
			if c.Timeout > MaxTimeout || pr.TimeoutSeconds < 0 {
				return nil, fmt.Errorf("%s: timeout_seconds: %d; it is 1 to %d", where, pr.TimeoutSeconds, int(MaxTimeout.Seconds()))
			}
		}
		if pr.BodyRegex != "" {
			if pr.Type != TypeHTTP {
				return nil, fmt.Errorf("%s: body_regex is for http probes", where)
			}
			if len(pr.BodyRegex) > MaxRegexLen {
				return nil, fmt.Errorf("%s: body_regex: %d characters; at most %d", where, len(pr.BodyRegex), MaxRegexLen)
			}
			re, err := regexp.Compile(pr.BodyRegex)
			if err != nil {
				return nil, fmt.Errorf("%s: body_regex: %v", where, err)
			}
			c.BodyRegex = re
		}
		for _, s := range pr.ExpectStatus {
			if s < 100 || s > 599 {
				return nil, fmt.Errorf("%s: expect_status: %d is no HTTP status", where, s)
			}
		}
		if pr.MaxLatencyMS < 0 {
			return nil, fmt.Errorf("%s: max_latency_ms: %d is negative", where, pr.MaxLatencyMS)
		}
		c.MaxLatency = time.Duration(pr.MaxLatencyMS) * time.Millisecond
		if pr.WarnDays != nil {
			if *pr.WarnDays < 0 {
				return nil, fmt.Errorf("%s: warn_days: %d is negative", where, *pr.WarnDays)
			}
			c.WarnDays = *pr.WarnDays
		}
		switch {
		case pr.Target != "" && pr.Component != "":
			return nil, fmt.Errorf("%s: give target or component, not both", where)
		case pr.Target != "":
			t, err := target(pr.Type, pr.Target)
			if err != nil {
				return nil, fmt.Errorf("%s: target: %v", where, err)
			}
			c.Target = t
			out = append(out, c)
		case pr.Component != "":
			comp, ok := comps[pr.Component]
			if !ok {
				return nil, fmt.Errorf("%s: component: stack %q has no component %q", where, p.Stack, pr.Component)
			}
			if comp.Host == "" {
				return nil, fmt.Errorf("%s: component: %q has no host to probe", where, pr.Component)
			}
			c.Component, c.Target = comp.Name, componentTarget(pr.Type, pr.Scheme, pr.Path, comp)
			out = append(out, c)
		default:
			for _, comp := range st.Components {
				if comp.Host != "" {
					cc := c
					cc.Component, cc.Target = comp.Name, componentTarget(pr.Type, pr.Scheme, pr.Path, comp)
					out = append(out, cc)
				}
			}
		}
		if len(out) > MaxChecks {
			return nil, fmt.Errorf("%s: the profile makes more than %d checks (a probe with no target checks every component with a host)", where, MaxChecks)
		}
	}
	return out, nil
}

// target checks a probe's own target: a URL for http, host:port for tcp
// and tls (a URL is taken for its host and port).
func target(typ, t string) (string, error) {
	if typ == TypeHTTP {
		u, err := url.Parse(t)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return "", fmt.Errorf("%q is not an http or https URL", t)
		}
		return u.String(), nil
	}
	if u, err := url.Parse(t); err == nil && u.Host != "" && u.Scheme != "" {
		port := u.Port()
		if port == "" {
			port = map[string]string{"https": "443", "http": "80"}[u.Scheme]
		}
		if port == "" {
			return "", fmt.Errorf("%q names no port", t)
		}
		return net.JoinHostPort(u.Hostname(), port), nil
	}
	host, port, err := net.SplitHostPort(t)
	if err != nil || host == "" {
		return "", fmt.Errorf("%q is not host:port", t)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "", fmt.Errorf("%q: the port is 1 to 65535", t)
	}
	return t, nil
}

// componentTarget is what a probe of type typ reaches of a component: its
// host and port (by default 80, or 443 for https and tls).
func componentTarget(typ, scheme, path string, c Component) string {
	port := c.Port
	if typ == TypeHTTP {
		if scheme == "" {
			scheme = "http"
			if port == 443 {
				scheme = "https"
			}
		}
		if port == 0 {
			port = map[string]int{"http": 80, "https": 443}[scheme]
		}
		if !strings.HasPrefix(path, "/") {
			path = "/" + path
		}
		return (&url.URL{Scheme: scheme, Host: net.JoinHostPort(c.Host, strconv.Itoa(port)), Path: path}).String()
	}
	if port == 0 {
		port = 443
		if typ == TypeTCP {
			port = 80
		}
	}
	return net.JoinHostPort(c.Host, strconv.Itoa(port))
}

// cronParser reads five-field cron expressions (minute, hour, day of
// month, month, day of week), as schedules and blueprints write them.
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow)

// parseCron parses a five-field cron expression, with an optional
// CRON_TZ=zone before it.
func parseCron(expr string) (cron.Schedule, error) {
	if (strings.HasPrefix(expr, "CRON_TZ=") || strings.HasPrefix(expr, "TZ=")) && !strings.Contains(expr, " ") {
		// The cron library slices the zone up to the first space: with
		// none, it panics.
		return nil, fmt.Errorf("%q is not a five-field cron expression: the time zone is not followed by the fields", expr)
	}
	s, err := cronParser.Parse(expr)
	if err != nil {
		return nil, fmt.Errorf("%q is not a five-field cron expression (minute hour day-of-month month day-of-week): %v", expr, err)
	}
	return s, nil
}
