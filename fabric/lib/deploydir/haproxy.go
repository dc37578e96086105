package deploydir

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// haproxySections are the keywords that open a section of an HAProxy
// configuration.
var haproxySections = []string{"global", "defaults", "frontend", "backend", "listen", "resolvers", "peers", "userlist", "mailers", "program", "http-errors", "cache", "ring"}

// Section is a section of an HAProxy configuration.
type Section struct {
	// Kind is its keyword (global, backend, ...), Name its name ("" for
	// global and an unnamed defaults).
	Kind, Name string
	// Line is the line of its keyword (1-based).
	Line int
	// Body are its lines, trimmed, comments and blank lines left out.
	Body []string
}

// Server is a server line of a backend or a listen section.
type Server struct {
	Name, Address string
}

// maxHAProxy bounds the configuration read.
const maxHAProxy = 4 << 20

// ParseHAProxy reads the sections of an HAProxy configuration. Lines
// before the first section must be comments or blank.
func ParseHAProxy(data []byte) ([]Section, error) {
	if len(data) > maxHAProxy {
		return nil, fmt.Errorf("%s: over %d MB", HAProxy, maxHAProxy>>20)
	}
	var out []Section
	for i, raw := range strings.Split(string(data), "\n") {
		line := strings.TrimSpace(stripComment(raw))
		if line == "" {
			continue
		}
		f := strings.Fields(line)
		if slices.Contains(haproxySections, f[0]) && (raw[0] != ' ' && raw[0] != '\t') {
			s := Section{Kind: f[0], Line: i + 1}
			if len(f) > 1 {
				s.Name = f[1]
			}
			if (s.Kind == "frontend" || s.Kind == "backend" || s.Kind == "listen") && s.Name == "" {
				return nil, fmt.Errorf("%s: line %d: %s without a name", HAProxy, i+1, s.Kind)
			}
			out = append(out, s)
			continue
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("%s: line %d: %q is in no section", HAProxy, i+1, clip(line))
		}
		out[len(out)-1].Body = append(out[len(out)-1].Body, line)
	}
	return out, nil
}

// clip shortens a line for an error message.
func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}

// stripComment drops a # comment (an escaped \# stays).
func stripComment(s string) string {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '#':
			return s[:i]
		}
	}
	return s
}

// Servers returns the server lines of a section.
func (s Section) Servers() []Server {
	var out []Server
	for _, l := range s.Body {
		f := strings.Fields(l)
		if len(f) >= 3 && f[0] == "server" {
			out = append(out, Server{Name: f[1], Address: f[2]})
		}
	}
	return out
}

// WebhookPort is the port of the webhook pods behind the webhook
// backend.
const WebhookPort = "8888"

// WebhookHosts returns the webhook hosts of a configuration: the hosts
// of its servers named webhook*, in order, once each.
func WebhookHosts(secs []Section) []string {
	var out []string
	for _, s := range secs {
		for _, srv := range s.Servers() {
			if !strings.HasPrefix(srv.Name, "webhook") {
				continue
			}
			host := srv.Address
			if i := strings.LastIndex(host, ":"); i >= 0 && !strings.HasSuffix(host, "]") {
				host = host[:i]
			}
			if !slices.Contains(out, host) {
				out = append(out, host)
			}
		}
	}
	return out
}

// AddWebhookBackend appends the webhook backend (step 3): http mode,
// round-robin balance, GET /healthcheck checks and cookie stickiness,
// on port 8888 of each webhook host (WebhookHosts). A configuration
// with a webhook backend is left as it is.
func AddWebhookBackend(data []byte) ([]byte, bool, error) {
	secs, err := ParseHAProxy(data)
	if err != nil {
		return nil, false, err
	}
	for _, s := range secs {
		if s.Kind == "backend" && s.Name == "webhook" {
			return data, false, nil
		}
	}
	hosts := WebhookHosts(secs)
	if len(hosts) == 0 {
		return nil, false, fmt.Errorf("%s: no webhook host (a server named webhook-N in a backend)", HAProxy)
	}
	var b bytes.Buffer
	b.Write(data)
	if len(data) > 0 && data[len(data)-1] != '\n' {
		b.WriteByte('\n')
	}
	b.WriteString("\n# Alert webhooks over http (8.1.0.1): the webhook service on port 8888\n# of each webhook host, a client kept on one server by a cookie.\nbackend webhook\n")
	b.WriteString("    mode http\n    balance roundrobin\n    option httpchk GET /healthcheck\n    cookie SERVERID insert indirect nocache\n")
	for i, h := range hosts {
		fmt.Fprintf(&b, "    server webhook-%d %s:%s check cookie webhook-%d\n", i+1, h, WebhookPort, i+1)
	}
	return b.Bytes(), true, nil
}

// LogRotation is the load balancer's log-rotation configuration (step
// 17), for logrotate.
const LogRotation = `# Log rotation of the load balancer (8.1.0.1 upgrade, step 17): install as
# /etc/logrotate.d/haproxy on the load balancer hosts, then restart it.
/var/log/haproxy.log {
    daily
    rotate 7
    maxsize 500M
    missingok
    notifempty
    compress
    delaycompress
    postrotate
        /bin/kill -HUP $(cat /var/run/haproxy.pid 2>/dev/null) 2>/dev/null || true
    endscript
}
`
