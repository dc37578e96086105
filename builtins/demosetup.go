package builtins

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"sort"
	"strings"

	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/lib/starvalue"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
)

func (e *Env) demoSetup(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var dir, ip string
	port := 7443
	protocol := "https"
	var pipelines, blueprints starlark.Value = starlark.None, starlark.None
	var verifyOnly bool
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "dir", &dir, "ip", &ip, "port?", &port, "protocol?", &protocol,
		"pipelines?", &pipelines, "blueprints?", &blueprints, "verify_only?", &verifyOnly); err != nil {
		return nil, err
	}
	if port < 1 || port > 65535 {
		return nil, fmt.Errorf("%s: port: %d is not a port (1 to 65535)", b.Name(), port)
	}
	if protocol != "http" && protocol != "https" {
		return nil, fmt.Errorf("%s: protocol: %q is neither http nor https", b.Name(), protocol)
	}
	pl, err := nameList("pipelines", pipelines)
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	bl, err := nameList("blueprints", blueprints)
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	h := host.From(thread)
	dir = h.Path(dir)
	// The directory is read before the fabric is reached: a wrong one
	// says so at once.
	if _, err := client.BackupReadSettings(dir); err != nil {
		return nil, fail(b.Name(), err)
	}
	c, label, done, err := e.SetupClient(thread, ip)
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	defer done()
	ctx := host.Context(thread)
	r, err := artifactRepo(ctx, c)
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	res, err := client.BackupSetup(ctx, &client.BackupSource{Repo: r, Data: c.Data, JS: c.JetStream(), CheckPort: c.CheckEndpointPort}, client.BackupSetupOptions{
		Dir: dir, Pipelines: pl, Blueprints: bl, Port: port, Protocol: protocol, VerifyOnly: verifyOnly})
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	return starvalue.ToStarlark(starvalue.Map{{Key: "target", Value: label}, {Key: "rows", Value: res.Rows}, {Key: "warnings", Value: res.Warnings}})
}

// SetupClient connects to the fabric demo setup's --ip names (see
// setupTarget): the client, what to call the target, and what to call
// when done with it.
func (e *Env) SetupClient(thread *starlark.Thread, ip string) (*client.Client, string, func(), error) {
	path, label, err := e.setupTarget(host.From(thread).Path, ip)
	if err != nil {
		return nil, "", nil, err
	}
	if path == client.ConfigPath(e.Home) {
		c, err := e.Client()
		return c, label, func() {}, err
	}
	cfg, err := client.LoadConfig(path)
	if err != nil {
		return nil, "", nil, err
	}
	c, err := client.Connect(cfg)
	if err != nil {
		if errors.Is(err, client.ErrUnreachable) && cfg.Local {
			err = fmt.Errorf("%v (the local fabric: 'client fabric up' starts it)", err)
		}
		return nil, "", nil, fmt.Errorf("%s: %v", label, err)
	}
	return c, label, func() { c.Close() }, nil
}

// nameList reads a list of names: None, a comma-separated string, or a
// list of strings.
func nameList(what string, v starlark.Value) ([]string, error) {
	var out []string
	switch x := v.(type) {
	case starlark.NoneType:
		return nil, nil
	case starlark.String:
		for _, n := range strings.Split(string(x), ",") {
			if n = strings.TrimSpace(n); n != "" {
				out = append(out, n)
			}
		}
		return out, nil
	}
	it := starlark.Iterate(v)
	if it == nil {
		return nil, fmt.Errorf("%s: want a list of names, got %s", what, v.Type())
	}
	defer it.Done()
	var x starlark.Value
	for it.Next(&x) {
		s, ok := starlark.AsString(x)
		if !ok {
			return nil, fmt.Errorf("%s: want names (strings), got %s", what, x.Type())
		}
		out = append(out, s)
	}
	return out, nil
}

// setupTarget resolves demo setup's --ip to a network configuration:
// a project of that name; a network configuration file; else the current
// configuration when its servers are at that address, else the one
// project whose servers are. It returns the configuration's path and
// what to call it.
func (e *Env) setupTarget(abs func(string) string, ip string) (path, label string, err error) {
	ip = strings.TrimSpace(ip)
	if ip == "" {
		return "", "", errors.New("--ip: give the address of the fabric to set up")
	}
	projects, _ := client.Projects(e.Home)
	for _, p := range projects {
		if p.Name == ip {
			return p.ConfigPath(e.Home), "project " + p.Name, nil
		}
	}
	if st, err := os.Stat(abs(ip)); err == nil && !st.IsDir() {
		return abs(ip), "the network configuration " + ip, nil
	}
	current := client.ConfigPath(e.Home)
	cfg, err := client.LoadConfig(current)
	switch {
	case errors.Is(err, client.ErrNoConfig):
		if sameHost(ip, "127.0.0.1") {
			return current, "the local fabric", nil // started on first use
		}
	case err != nil:
		return "", "", err
	case servesAt(cfg, ip):
		return current, fmt.Sprintf("tenant %s at %s (the network configuration in use)", cfg.Tenant, ip), nil
	}
	var found []string
	var paths []string
	for _, p := range projects {
		c, err := client.LoadConfig(p.ConfigPath(e.Home))
		if err == nil && servesAt(c, ip) {
			found = append(found, p.Name)
			paths = append(paths, p.ConfigPath(e.Home))
		}
	}
	switch len(found) {
	case 1:
		return paths[0], "project " + found[0], nil
	case 0:
		return "", "", fmt.Errorf("--ip %s: neither the network configuration in use nor a project reaches a fabric there ('client project add' links one, or give a project's name)", ip)
	}
	sort.Strings(found)
	return "", "", fmt.Errorf("--ip %s: the projects %s all reach it: give one's name to --ip", ip, strings.Join(found, ", "))
}

// servesAt reports whether one of cfg's servers is at addr (host, or
// host:port).
func servesAt(cfg *client.Config, addr string) bool {
	for _, raw := range cfg.NATS.URLs {
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" {
			continue
		}
		if h, p, err := net.SplitHostPort(addr); err == nil {
			if sameHost(h, u.Hostname()) && p == u.Port() {
				return true
			}
			continue
		}
		if sameHost(strings.Trim(addr, "[]"), u.Hostname()) {
			return true
		}
	}
	return false
}

// sameHost compares hosts, the loopback names as one.
func sameHost(a, b string) bool {
	loop := func(h string) bool { return h == "localhost" || net.ParseIP(h).IsLoopback() }
	if loop(a) && loop(b) {
		return true
	}
	return strings.EqualFold(a, b)
}
