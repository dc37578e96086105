package builtins

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/lib/starvalue"
	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
)

// packModule is the pack module (SPEC 2.11, 4.10): packs uploaded into
// the tenant's catalogue, activated, enabled for single-tenant use or per
// customer, compared and taken back.
func (e *Env) packModule() starlark.Value {
	scoped := func(name, scope, summary string, undo bool) *starlark.Builtin {
		return doc.Builtin("pack."+name, summary, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return e.packScoped(thread, b, args, kwargs, scope, undo)
		})
	}
	return doc.Module("pack", `Packs: versioned .tar.gz bundles of pipelines, blueprints, dashboards,
alert rules, credentials, schedules, streams, datasets and more, with a
manifest.yaml at the top and deploy variables filled at activation
(README: "Packs" has the format and an example).`, starlark.StringDict{
		"upload": doc.Builtin("pack.upload", `upload(file)

Checks the pack file (its manifest, its files and their {{ placeholders }})
and stores it in the tenant's catalogue; returns its record (id, name,
version, description, publisher, size, artifacts by scope,
uploaded_time). A name and version the catalogue has is refused.`, e.packUpload),
		"list": doc.Builtin("pack.list", `list(name=None)

Returns the catalogue's packs (of one name), by name and version: id,
name, version, description, publisher, state (uploaded, ACTIVATED or
partly activated), single_tenant_enabled and customers_enabled.`, e.packList),
		"remove": doc.Builtin("pack.remove", `remove(name, version=None)

Removes a version of a pack, or every version (version None), and
returns the records removed. A version that is activated or enabled is
refused: deactivate it first.`, e.packRemove),
		"activate": scoped("activate", "common", `activate(name, version, inputs=None)

Deploys the pack's common artifacts, all or nothing, and returns a row
for each: type, name, status (Success, or Skipped when one exists and its
creation_policy is skip), pipeline_version for pipelines and blueprint_id
for blueprints. inputs is a dict of deploy variables (a value may be a
secret reference, {"$secret": "name"}).`, false),
		"deactivate": scoped("deactivate", "common", `deactivate(name, version, force=False)

Removes exactly what the pack's activation created (nothing a user made,
nothing it skipped) and returns a row for each. force takes back an
activation that stopped half-way.`, true),
		"enable_single_tenant":  scoped("enable_single_tenant", "single_tenant", "enable_single_tenant(name, version, inputs=None)\n\nDeploys the pack's single-tenant artifacts (the pack must be activated); rows as activate.", false),
		"disable_single_tenant": scoped("disable_single_tenant", "single_tenant", "disable_single_tenant(name, version, force=False)\n\nRemoves what enable_single_tenant created.", true),
		"enable_customer":       scoped("enable_customer", "customer", "enable_customer(name, version, customer_tag, inputs=None)\n\nDeploys the pack's customer artifacts for one customer tag (several tags live side by side); rows as activate.", false),
		"disable_customer":      scoped("disable_customer", "customer", "disable_customer(name, version, customer_tag, force=False)\n\nRemoves what enable_customer created for that customer tag.", true),
		"compare": doc.Builtin("pack.compare", `compare(pack_name, pack_version, with_="deployed", deploy_type=None, customer_tag=None,
        common_vars=None, customer_vars=None, single_tenant_vars=None,
        other_pack_name=None, other_pack_version=None, other_pack_common_vars=None,
        other_pack_customer_vars=None, other_pack_single_tenant_vars=None, output=None, html=False)

Compares a pack (its common artifacts, and those of deploy_type:
"customer" with customer_tag, or "single_tenant") with what is deployed
or with another pack, and returns the report: {"summary": ..., "compare_rows": [...]}
(SPEC 2.11; checksums of the rendered artifacts). output writes the
report as a .tar.gz (report.json, and with html=True a side-by-side
report.html, viewable offline). With html=True and a portal in the
network configuration, report.html is stored for the portal too (the
newest 50 reports are kept) and the report has its URL there in
report_url.`, e.packCompare),
		"create": doc.Builtin("pack.create", `create(name, version, upload=False, artifact_config=None, dir=".")

Packs the tenant's current artifacts as NAME-VERSION.tar.gz in dir (the
working directory) and returns its path; upload=True stores it in the
catalogue too. artifact_config (a dict): default_artifact_type_backup
(every type not listed, whole) and artifact: {type: {"backup_all": bool,
"artifacts": [names]}}. None: every artifact of every type but datasets.
A credential's value is never packed: activation asks for it as the
secret deploy variable NAME_value.`, e.packCreate),
		"cleanup_system": doc.Builtin("pack.cleanup_system", `cleanup_system(test=False)

Deletes the system-bundle packs (a manifest with publisher: system) that
are not activated (no activation, whole or partial, no single-tenant or
customer enablement) and returns the report: test, total, processed (the
system-bundle packs), marked, deleted, skipped_activated,
skipped_not_found, and packs: a row for each (name, version, action).
test=True deletes nothing; deleted then counts what would be.`, e.packCleanupSystem),
		"install_catalogue": doc.Builtin("pack.install_catalogue", `install_catalogue(dir, all=False, replace=False, inputs=None)

Uploads every pack (*.tar.gz) of dir not uploaded yet, then activates the
base packs (a name with the word base) first, then the others that are
deployed (a version of the same name is activated; every one with
all=True). A version is not activated while another is: replace=True
deactivates the other first. inputs maps a pack name to its deploy
variables. Returns a
row for each pack: name, version, base, file, upload, activation
(activated, activated already, not deployed, or "failed: ..." when its
activation was refused; the others go on).`, e.packInstallCatalogue),
	})
}

func (e *Env) packUpload(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var file string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "file", &file); err != nil {
		return nil, err
	}
	path := host.From(thread).Path(file)
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		rec, err := c.UploadPack(ctx, path)
		return rec, trimPathError(err)
	})
}

func (e *Env) packList(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name optString
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name?", &name); err != nil {
		return nil, err
	}
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		return c.ListPacks(ctx, string(name))
	})
}

func (e *Env) packRemove(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	var version optString
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "version?", &version); err != nil {
		return nil, err
	}
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		return c.RemovePack(ctx, name, string(version))
	})
}

// packScoped is activate, deactivate and the enable and disable calls
// of a scope.
func (e *Env) packScoped(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple, scope string, undo bool) (starlark.Value, error) {
	req := client.PackRequest{Scope: scope}
	var inputs starlark.Value = starlark.None
	pairs := []any{"name", &req.Name, "version", &req.Version}
	if scope == "customer" {
		pairs = append(pairs, "customer_tag", &req.CustomerTag)
	}
	if undo {
		pairs = append(pairs, "force?", &req.Force)
	} else {
		pairs = append(pairs, "inputs?", &inputs)
	}
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, pairs...); err != nil {
		return nil, err
	}
	in, err := packVars(inputs, "inputs")
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	req.Inputs = in
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		if undo {
			return c.DeactivatePack(ctx, req)
		}
		return c.ActivatePack(ctx, req)
	})
}

// packVars reads a dict of deploy variables (or a JSON object in a
// string, as the command line gives it); None is none.
func packVars(v starlark.Value, what string) (map[string]any, error) {
	switch x := v.(type) {
	case starlark.NoneType:
		return nil, nil
	case starlark.String:
		var m map[string]any
		if err := json.Unmarshal([]byte(string(x)), &m); err != nil {
			return nil, fmt.Errorf("%s is not a JSON object: %v", what, err)
		}
		return m, nil
	}
	g, err := starvalue.FromStarlark(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", what, err)
	}
	m, ok := starvalue.Plain(g).(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: got %s, want a dict", what, v.Type())
	}
	return m, nil
}

func (e *Env) packCompare(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var o client.PackCompareOptions
	var with, deployType, tag, otherName, otherVersion, output optString
	var html bool
	vars := make([]starlark.Value, 6)
	for i := range vars {
		vars[i] = starlark.None
	}
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "pack_name", &o.Name, "pack_version", &o.Version,
		"with_?", &with, "deploy_type?", &deployType, "customer_tag?", &tag,
		"common_vars?", &vars[0], "customer_vars?", &vars[1], "single_tenant_vars?", &vars[2],
		"other_pack_name?", &otherName, "other_pack_version?", &otherVersion,
		"other_pack_common_vars?", &vars[3], "other_pack_customer_vars?", &vars[4], "other_pack_single_tenant_vars?", &vars[5],
		"output?", &output, "html?", &html); err != nil {
		return nil, err
	}
	o.With, o.DeployType, o.CustomerTag, o.OtherName, o.OtherVersion = string(with), string(deployType), string(tag), string(otherName), string(otherVersion)
	if html && output == "" {
		return nil, fail(b.Name(), fmt.Errorf("--output is required with --html"))
	}
	if o.DeployType == "customer" && o.CustomerTag == "" {
		return nil, fail(b.Name(), fmt.Errorf("--customer_tag is required when --deploy_type is customer"))
	}
	names := []string{"common_vars", "customer_vars", "single_tenant_vars", "other_pack_common_vars", "other_pack_customer_vars", "other_pack_single_tenant_vars"}
	scopes := []string{"common", "customer", "single_tenant"}
	o.Vars, o.OtherVars = map[string]map[string]any{}, map[string]map[string]any{}
	for i, v := range vars {
		m, err := packVars(v, names[i])
		if err != nil {
			return nil, fail(b.Name(), err)
		}
		if i < 3 {
			o.Vars[scopes[i]] = m
		} else {
			o.OtherVars[scopes[i-3]] = m
		}
	}
	var path string
	if output != "" {
		path = host.From(thread).Path(string(output))
	}
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		r, err := c.ComparePack(ctx, o)
		if err != nil {
			return nil, err
		}
		if path != "" {
			if err := client.WritePackReport(path, r, html); err != nil {
				return nil, trimPathError(err)
			}
		}
		if !html {
			return r, nil
		}
		// The HTML report opens in the portal too, when there is one.
		u, err := c.PublishPackReport(ctx, r)
		if err != nil {
			return nil, fmt.Errorf("wrote the report to %s, but %v", string(output), err)
		}
		if u == "" {
			return r, nil
		}
		var m map[string]any
		b, err := json.Marshal(r)
		if err == nil {
			err = json.Unmarshal(b, &m)
		}
		if err != nil {
			return nil, err
		}
		m["report_url"] = u
		return m, nil
	})
}

func (e *Env) packCreate(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name, version string
	var upload bool
	var config starlark.Value = starlark.None
	dirArg := optString(".")
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "version", &version, "upload?", &upload, "artifact_config?", &config, "dir?", &dirArg); err != nil {
		return nil, err
	}
	if dirArg == "" {
		dirArg = "."
	}
	cfg := client.DefaultPackArtifactConfig
	if config != starlark.None {
		m, err := packVars(config, "artifact_config")
		if err != nil {
			return nil, fail(b.Name(), err)
		}
		data, _ := json.Marshal(m)
		cfg = client.PackArtifactConfig{}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&cfg); err != nil {
			return nil, fail(b.Name(), fmt.Errorf("artifact_config: %v", err))
		}
	}
	dir := host.From(thread).Path(string(dirArg))
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		return c.CreatePack(ctx, name, version, cfg, dir, upload)
	})
}
