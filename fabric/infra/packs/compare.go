package packs

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/lib/pack"
)

// Sides a pack is compared with.
const (
	WithDeployed = "deployed"
	WithPack     = "pack"
)

// CompareOptions say what a comparison compares (SPEC 4.10 pack compare).
type CompareOptions struct {
	// Name and Version are the left pack's.
	Name, Version string
	// With is WithDeployed (the default) or WithPack.
	With string
	// DeployType adds a scope to the common artifacts, which are always
	// compared: "" (none), pack.ScopeSingleTenant or pack.ScopeCustomer
	// (with CustomerTag).
	DeployType  string
	CustomerTag string
	// Vars are the left pack's inputs by scope.
	Vars map[string]map[string]any
	// OtherName, OtherVersion and OtherVars are the right pack's, with
	// WithPack.
	OtherName, OtherVersion string
	OtherVars               map[string]map[string]any
}

// masked stands for a secret variable's value in a report.
const masked = "********"

// Compare compares a pack with what the tenant has deployed (matched by
// type and name; what the pack's activations created that the pack does
// not have is only in right) or with another pack.
func (a *Activator) Compare(ctx context.Context, o CompareOptions) (pack.Report, error) {
	if o.With == "" {
		o.With = WithDeployed
	}
	scopes := []string{pack.ScopeCommon}
	switch o.DeployType {
	case "":
	case pack.ScopeCustomer:
		if o.CustomerTag == "" {
			return pack.Report{}, errors.New("--customer_tag is required when --deploy_type is customer")
		}
		scopes = append(scopes, o.DeployType)
	case pack.ScopeSingleTenant:
		scopes = append(scopes, o.DeployType)
	default:
		return pack.Report{}, fmt.Errorf("--deploy_type %q: want customer or single_tenant", o.DeployType)
	}
	summary := pack.Summary{Timestamp: api.Timestamp(a.Catalog.now()), CompareWith: o.With, DeploymentType: o.DeployType,
		CommonDeployVars: map[string]string{}, ContextVars: map[string]string{}, CustomerDeployVars: map[string]string{}, SingleTenantDeployVars: map[string]string{}}
	left, err := a.side(ctx, o.Name, o.Version, scopes, o.CustomerTag, o.Vars, &summary)
	if err != nil {
		return pack.Report{}, err
	}
	var right pack.Side
	switch o.With {
	case WithDeployed:
		right, err = a.deployed(ctx, o.Name, left, scopes, o.CustomerTag)
	case WithPack:
		if o.OtherName == "" || o.OtherVersion == "" {
			return pack.Report{}, errors.New("--with pack needs --other_pack_name and --other_pack_version")
		}
		right, err = a.side(ctx, o.OtherName, o.OtherVersion, scopes, o.CustomerTag, o.OtherVars, nil)
	default:
		return pack.Report{}, fmt.Errorf("--with %q: want deployed or pack", o.With)
	}
	if err != nil {
		return pack.Report{}, err
	}
	return pack.Compare(left, right, summary), nil
}

// side renders the scopes of a pack with its inputs and returns its
// items; with summary set, it notes the variables there (secrets
// masked).
func (a *Activator) side(ctx context.Context, name, version string, scopes []string, tag string, vars map[string]map[string]any, summary *pack.Summary) (pack.Side, error) {
	rec, err := a.Catalog.Get(ctx, name, version)
	if err != nil {
		return pack.Side{}, err
	}
	p, err := a.Catalog.Open(ctx, rec)
	if err != nil {
		return pack.Side{}, err
	}
	side := pack.Side{PackName: name, PackVersion: version}
	// What the pack's activations were given, under what is given here.
	acts, err := a.Catalog.Activations(ctx, name)
	if err != nil {
		return pack.Side{}, err
	}
	kept := map[string]map[string]any{}
	ctxa := *a // the site the activation was rendered with, if any
	for _, act := range acts {
		if act.Scope != pack.ScopeCustomer || act.CustomerTag == tag {
			kept[act.Scope] = act.Inputs
		}
		if act.Scope == pack.ScopeCommon && ctxa.Site == "" {
			ctxa.Site = act.Site
		}
	}
	for _, scope := range scopes {
		inputs := map[string]any{}
		for _, m := range []map[string]any{kept[pack.ScopeCommon], kept[scope], vars[pack.ScopeCommon], vars[scope]} {
			for k, v := range m {
				inputs[k] = v
			}
		}
		// A secret not given is not needed: its value is masked in the
		// report, and a credential's checksum leaves it out.
		for _, v := range p.Manifest.VarsOf(scope) {
			if _, given := inputs[v.Name]; !given && v.Secret && v.Default == nil {
				inputs[v.Name] = ""
			}
		}
		values, err := ctxa.Values(ctx, p.Manifest, scope, tag, inputs)
		if err != nil {
			return pack.Side{}, fmt.Errorf("pack %s version %s: %v", name, version, err)
		}
		rendered, err := render(p, scope, values)
		if err != nil {
			return pack.Side{}, fmt.Errorf("pack %s version %s: %v", name, version, err)
		}
		for _, r := range rendered {
			item := pack.Item{Type: r.Type, Name: r.Name, File: r.File, Version: version, Checksum: a.checksum(ctx, r), Text: r.DiffText()}
			if r.Type == pack.TypeCredential {
				item.Text = nil
			}
			side.Items = append(side.Items, item)
		}
		if summary != nil {
			own := map[string][]pack.Var{pack.ScopeCommon: p.Manifest.CommonVars,
				pack.ScopeSingleTenant: p.Manifest.SingleTenantVars, pack.ScopeCustomer: p.Manifest.CustomerVars}[scope]
			shown := map[string]string{}
			for _, v := range own {
				shown[v.Name] = values[v.Name]
				if v.Secret {
					shown[v.Name] = masked
				}
			}
			switch scope {
			case pack.ScopeCommon:
				summary.CommonDeployVars = shown
				summary.ContextVars = map[string]string{"tenant": values["tenant"], "site": values["site"], "customer_tag": tag}
			case pack.ScopeSingleTenant:
				summary.SingleTenantDeployVars = shown
			case pack.ScopeCustomer:
				summary.CustomerDeployVars = shown
			}
		}
	}
	return side, nil
}

// checksum is a rendered artifact's checksum as its target computes it
// (so that it matches what is deployed), or the file's own when the
// target cannot read it.
func (a *Activator) checksum(ctx context.Context, r pack.Rendered) string {
	if t := a.Targets[r.Type]; t != nil {
		if p, err := t.Prepare(ctx, r, anyPending{}); err == nil {
			return p.Checksum
		}
	}
	return r.Checksum
}

// deployed returns what the tenant has of the left side's artifacts, and
// what the activations of the pack (any version) of the scopes compared
// (a customer's: of that customer) created that the left side does not
// have.
func (a *Activator) deployed(ctx context.Context, name string, left pack.Side, scopes []string, tag string) (pack.Side, error) {
	side := pack.Side{PackName: WithDeployed}
	all, err := a.Catalog.Activations(ctx, name)
	if err != nil {
		return side, err
	}
	var acts []api.PackActivation
	for _, act := range all {
		if slices.Contains(scopes, act.Scope) && (act.Scope != pack.ScopeCustomer || act.CustomerTag == tag) {
			acts = append(acts, act)
		}
	}
	// A dataset's data is not read back: what an activation of the pack
	// stored is taken to be there still.
	stored := map[string]string{}
	for _, act := range acts {
		for _, c := range act.Created {
			if c.Type == pack.TypeDataset {
				stored[c.Name] = c.Checksum
			}
		}
	}
	seen := map[[2]string]bool{}
	add := func(typ, name, file string) error {
		k := [2]string{typ, name}
		if seen[k] {
			return nil
		}
		seen[k] = true
		t := a.Targets[typ]
		if t == nil {
			return nil
		}
		item, found, err := t.Deployed(ctx, name)
		if err != nil {
			return fmt.Errorf("%s %s: %v", typ, name, err)
		}
		if found {
			if sum, ok := stored[name]; ok && typ == pack.TypeDataset {
				item.Checksum = sum
			}
			item.File = file
			side.Items = append(side.Items, item)
		}
		return nil
	}
	for _, it := range left.Items {
		if err := add(it.Type, it.Name, it.File); err != nil {
			return side, err
		}
	}
	for _, act := range acts {
		for _, c := range act.Created {
			if err := add(c.Type, c.Name, ""); err != nil {
				return side, err
			}
		}
	}
	return side, nil
}
