package builtins

import (
	"fmt"
	"github.com/fabricops/fabric/fabric/client"
	"os"
	"slices"
	"strings"

	"github.com/fabricops/fabric/fabric/lib/starvalue"
	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
)

// projectModule links the client to other tenants and fabrics and
// switches between them (the projects live in the client's home).
func (e *Env) projectModule() starlark.Value {
	return doc.Module("project", "Projects: other tenants of the local fabric, or other fabrics, linked by name; use switches between them.", starlark.StringDict{
		"add": doc.Builtin("project.add", `add(name, tenant=None, config=None, description="", overwrite=False)

Links a project: tenant names a tenant of the local fabric; config is
the path of another fabric's network configuration (copied into the
client's home, readable only by you). Returns its list row.`, e.projectAdd),
		"get": doc.Builtin("project.get", `get(name)

Returns a project: name, description, type ("local" or "remote"),
tenant, saved_time, active, and its network configuration (secrets
redacted) under "network" when it can be read.`, e.projectGet),
		"list": doc.Builtin("project.list", `list()

Returns the list rows of the projects (name, type, tenant, urls,
active, description, saved_time), by name.`, e.projectList),
		"delete": doc.Builtin("project.delete", `delete(name)

Deletes a project; deleting the one in use switches back to the default
network configuration.`, e.projectDelete),
		"use": doc.Builtin("project.use", `use(name=None)

Makes the client use the project name from now on (this process and
the next), or the default network configuration without a name. Returns
the network configuration now in use, secrets redacted, with its path.`, e.projectUse),
		"current": doc.Builtin("project.current", `current()

Returns the name of the project in use, or None for the default network
configuration.`, e.projectCurrent),
	})
}

func (e *Env) projectAdd(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name, descr string
	var tenant, config optString
	var overwrite bool
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "tenant?", &tenant, "config?", &config,
		"description?", &descr, "overwrite?", &overwrite); err != nil {
		return nil, err
	}
	p := client.Project{Name: name, Description: descr}
	var cfg *client.Config
	switch {
	case tenant != "" && config != "":
		return nil, fail(b.Name(), fmt.Errorf("give a tenant of the local fabric or the network configuration of another, not both"))
	case tenant != "":
		if err := e.checkLocalTenant(string(tenant)); err != nil {
			return nil, fail(b.Name(), err)
		}
		p.Type, p.Tenant = client.LocalProject, string(tenant)
	case config != "":
		var err error
		if cfg, err = client.LoadConfig(host.From(thread).Path(string(config))); err != nil {
			return nil, fail(b.Name(), err)
		}
		p.Type = client.RemoteProject
	default:
		return nil, fail(b.Name(), fmt.Errorf("give a tenant of the local fabric (tenant=) or another fabric's network configuration (config=)"))
	}
	p, err := client.AddProject(e.Home, p, cfg, overwrite)
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	return e.projectRow(p)
}

// checkLocalTenant checks that the local fabric runs, or ran, tenant.
func (e *Env) checkLocalTenant(tenant string) error {
	if st, err := client.LocalStatus(e.Home); err == nil && st != nil && slices.Contains(st.Tenants, tenant) {
		return nil
	}
	if _, err := os.Stat(client.TenantConfigPath(e.Home, tenant)); err == nil {
		return nil
	}
	return fmt.Errorf("the local fabric has no tenant %q ('client fabric down', then 'client fabric up --tenants default,%s' adds it)", tenant, tenant)
}

// projectRow is a project's list row.
func (e *Env) projectRow(p client.Project) (starlark.Value, error) {
	cur, _ := client.CurrentProject(e.Home)
	var urls string
	if cfg, err := client.LoadConfig(p.ConfigPath(e.Home)); err == nil {
		urls = strings.Join(cfg.NATS.URLs, ",")
	}
	return starvalue.ToStarlark(starvalue.Map{
		{Key: "name", Value: p.Name}, {Key: "type", Value: p.Type}, {Key: "tenant", Value: p.Tenant},
		{Key: "urls", Value: urls}, {Key: "active", Value: cur == p.Name},
		{Key: "description", Value: p.Description}, {Key: "saved_time", Value: p.SavedTime},
	})
}

func (e *Env) projectGet(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name); err != nil {
		return nil, err
	}
	p, err := client.LoadProject(e.Home, name)
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	cur, _ := client.CurrentProject(e.Home)
	m := starvalue.Map{
		{Key: "name", Value: p.Name}, {Key: "description", Value: p.Description}, {Key: "type", Value: p.Type},
		{Key: "tenant", Value: p.Tenant}, {Key: "saved_time", Value: p.SavedTime}, {Key: "active", Value: cur == p.Name},
	}
	if cfg, err := client.LoadConfig(p.ConfigPath(e.Home)); err == nil {
		net, err := starvalue.ToStarlark(cfg.Redacted())
		if err != nil {
			return nil, err
		}
		m = append(m, starvalue.KV{Key: "network", Value: net})
	}
	return starvalue.ToStarlark(m)
}

func (e *Env) projectList(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	ps, err := client.Projects(e.Home)
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	rows := make([]starlark.Value, 0, len(ps))
	for _, p := range ps {
		row, err := e.projectRow(p)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	return starlark.NewList(rows), nil
}

func (e *Env) projectDelete(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name); err != nil {
		return nil, err
	}
	cur, _ := client.CurrentProject(e.Home)
	if err := client.DeleteProject(e.Home, name); err != nil {
		return nil, fail(b.Name(), err)
	}
	if cur == name {
		e.Close() // the next call connects by the default configuration
	}
	return starlark.None, nil
}

func (e *Env) projectUse(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name optString
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name?", &name); err != nil {
		return nil, err
	}
	if os.Getenv("FABRIC_NETWORK_CONFIG") != "" {
		return nil, fail(b.Name(), fmt.Errorf("FABRIC_NETWORK_CONFIG names the network configuration: unset it to switch projects"))
	}
	if err := client.UseProject(e.Home, string(name)); err != nil {
		return nil, fail(b.Name(), err)
	}
	e.Close() // the next call connects to the project
	path := client.ConfigPath(e.Home)
	m := starvalue.Map{{Key: "project", Value: nil}, {Key: "path", Value: path}}
	if name != "" {
		m[0].Value = string(name)
	}
	if cfg, err := client.LoadConfig(path); err == nil {
		m = append(m, starvalue.KV{Key: "tenant", Value: cfg.Tenant}, starvalue.KV{Key: "urls", Value: strings.Join(cfg.NATS.URLs, ",")})
	}
	return starvalue.ToStarlark(m)
}

func (e *Env) projectCurrent(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	cur, err := client.CurrentProject(e.Home)
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	if cur == "" {
		return starlark.None, nil
	}
	return starlark.String(cur), nil
}
