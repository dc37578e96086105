package packs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/secret"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/lib/pack"
)

// Activator activates the scopes of a tenant's packs and takes them
// back, each as one transaction.
type Activator struct {
	Catalog *Catalog
	Targets Targets
	// Secrets resolve the references to secrets in inputs.
	Secrets *secret.Store
	// Tenant and Site are the context variables tenant and site.
	Tenant, Site string
	// Written, when set, is called after each artifact an activation
	// writes; an error ends the activation, which is then undone (the
	// tests make one fail half-way with it).
	Written func(api.PackCreated) error
}

// activationKey is the key of the activation record of a scope of a
// pack (one version at a time).
func activationKey(name, scope, tag string) string {
	return store.Key(name + "#" + scope + "#" + tag)
}

// checkScope checks a request's scope and customer tag.
func checkScope(req api.PackRequest) error {
	switch req.Scope {
	case pack.ScopeCommon, pack.ScopeSingleTenant:
		if req.CustomerTag != "" {
			return fmt.Errorf("a customer tag is for the customer scope, not %s", req.Scope)
		}
	case pack.ScopeCustomer:
		if req.CustomerTag == "" {
			return errors.New("--customer-tag is required for the customer scope")
		}
	default:
		return fmt.Errorf("no scope %q (want %s, %s or %s)", req.Scope, pack.ScopeCommon, pack.ScopeSingleTenant, pack.ScopeCustomer)
	}
	if req.Name == "" || req.Version == "" {
		return errors.New("a pack's name and version are required")
	}
	return nil
}

// what names a request's scope in messages.
func what(req api.PackRequest) string {
	switch req.Scope {
	case pack.ScopeSingleTenant:
		return fmt.Sprintf("the single-tenant artifacts of pack %s version %s", req.Name, req.Version)
	case pack.ScopeCustomer:
		return fmt.Sprintf("the artifacts of customer %s of pack %s version %s", req.CustomerTag, req.Name, req.Version)
	}
	return fmt.Sprintf("pack %s version %s", req.Name, req.Version)
}

// item is an artifact of an activation: prepared to write, or skipped.
type item struct {
	target  Target
	prep    Prepared
	skipped bool
	created *api.PackCreated
}

// Values returns the values of the deploy variables a scope of a pack
// sees, its inputs' references to secrets resolved.
func (a *Activator) Values(ctx context.Context, m pack.Manifest, scope, customerTag string, inputs map[string]any) (map[string]string, error) {
	var resolved any = map[string]any{}
	if len(inputs) > 0 {
		if a.Secrets == nil {
			resolved = inputs
		} else {
			var err error
			if resolved, err = a.Secrets.Resolve(ctx, map[string]any(inputs)); err != nil {
				return nil, err
			}
		}
	}
	in := map[string]string{}
	for k, v := range resolved.(map[string]any) {
		in[k] = inputString(v)
	}
	return m.Values(scope, in, map[string]string{"tenant": a.Tenant, "site": a.Site, "customer_tag": customerTag})
}

// inputString is an input's value as a placeholder takes it: a string
// as it is, anything else as JSON.
func inputString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case nil:
		return ""
	}
	data, _ := json.Marshal(v)
	return string(data)
}

// Activate deploys a scope of an uploaded pack: everything is rendered
// and checked first (an artifact that exists is skipped or refused by
// its creation policy); then the artifacts are written in dependency
// order, blueprints disabled and enabled last. A failure undoes what
// this activation wrote and names the artifact. The record of what it
// created is in the fabric; one activation of a scope of a pack at a
// time: another is refused.
func (a *Activator) Activate(ctx context.Context, req api.PackRequest) ([]api.PackRow, error) {
	if err := checkScope(req); err != nil {
		return nil, err
	}
	rec, err := a.Catalog.Get(ctx, req.Name, req.Version)
	if err != nil {
		return nil, err
	}
	st := a.Catalog.Store
	var common api.PackActivation
	if req.Scope != pack.ScopeCommon {
		_, err := st.Get(ctx, api.PackActivationsBucket, activationKey(req.Name, pack.ScopeCommon, ""), &common)
		if errors.Is(err, store.ErrNotFound) || err == nil && (common.Version != req.Version || common.State != api.PackActivated) {
			return nil, fmt.Errorf("pack %s version %s is not activated: activate it first (pack activate --name %s --version %s)", req.Name, req.Version, req.Name, req.Version)
		}
		if err != nil {
			return nil, err
		}
	}
	p, err := a.Catalog.Open(ctx, rec)
	if err != nil {
		return nil, err
	}
	inputs := req.Inputs
	if req.Scope != pack.ScopeCommon {
		inputs = enablementInputs(p, req.Scope, common.Inputs, req.Inputs)
	}
	values, err := a.Values(ctx, p.Manifest, req.Scope, req.CustomerTag, inputs)
	if err != nil {
		return nil, err
	}
	rendered, err := render(p, req.Scope, values)
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(rendered, func(x, y pack.Rendered) int {
		return slices.Index(pack.Types, x.Type) - slices.Index(pack.Types, y.Type)
	})

	// The lock: the activation's record, made first.
	actKey := activationKey(req.Name, req.Scope, req.CustomerTag)
	act := api.PackActivation{Name: req.Name, Version: req.Version, Scope: req.Scope, CustomerTag: req.CustomerTag,
		State: api.PackActivating, Created: []api.PackCreated{}, Rows: []api.PackRow{}, Time: api.Timestamp(a.Catalog.now()),
		Inputs: keepable(p.Manifest, req.Inputs), Site: a.Site}
	if err := st.Create(ctx, api.PackActivationsBucket, actKey, act); err != nil {
		if errors.Is(err, store.ErrExists) {
			var cur api.PackActivation
			if _, gerr := st.Get(ctx, api.PackActivationsBucket, actKey, &cur); gerr == nil {
				switch {
				case cur.State == api.PackActivating:
					return nil, fmt.Errorf("%s: another activation of it is under way, or one stopped half-way (%s)", what(req), undoCommand(cur))
				case cur.Version == req.Version:
					return nil, fmt.Errorf("pack %s version %s is %s already (%s first)", req.Name, req.Version, scopeState(cur), undoCommand(cur))
				}
				return nil, fmt.Errorf("%s: version %s is %s (%s first)", what(req), cur.Version, scopeState(cur), undoCommand(cur))
			}
			return nil, fmt.Errorf("%s: another activation of it is under way", what(req))
		}
		return nil, err
	}
	items, err := a.plan(ctx, rendered)
	if err == nil {
		// What it will create, with checksums, so that a deactivation
		// with --force can take back an activation whose api-server
		// stopped half-way, and nothing a user made.
		for _, it := range items {
			if !it.skipped {
				act.Created = append(act.Created, api.PackCreated{Type: it.prep.Rendered.Type, Name: it.prep.Rendered.Name, Checksum: it.prep.Checksum})
			}
		}
		err = st.Put(ctx, api.PackActivationsBucket, actKey, act, 0)
	}
	if err == nil {
		err = a.write(ctx, items)
	}
	if err != nil {
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), api.PackUndoTimeout)
		defer cancel()
		if uerr := a.undo(uctx, items); uerr != nil {
			return nil, fmt.Errorf("%s: %v; undoing what it wrote failed too: %v (%s)", what(req), err, uerr, undoCommand(act))
		}
		_ = st.Delete(uctx, api.PackActivationsBucket, actKey)
		return nil, fmt.Errorf("%s: %v (nothing of it is deployed: what it wrote was undone)", what(req), err)
	}
	act.State = api.PackActivated
	act.Created = act.Created[:0]
	for _, it := range items {
		row := api.PackRow{Type: it.prep.Rendered.Type, Name: it.prep.Rendered.Name, Status: api.PackSuccess}
		if it.skipped {
			row.Status = api.PackSkipped
		} else {
			act.Created = append(act.Created, *it.created)
			row.PipelineVersion = it.created.Version
		}
		if row.Type == pack.TypeBlueprint {
			row.BlueprintID = row.Name
		}
		act.Rows = append(act.Rows, row)
	}
	if err := st.Put(ctx, api.PackActivationsBucket, actKey, act, 0); err != nil {
		return nil, fmt.Errorf("%s is deployed, but its record could not be written: %v", what(req), err)
	}
	return act.Rows, nil
}

// plan prepares every artifact in order, each seeing those before it as
// pending; an artifact that exists is skipped or, by a creation policy
// of fail, refused. The error names the artifact.
func (a *Activator) plan(ctx context.Context, rendered []pack.Rendered) ([]*item, error) {
	pending := pendingSet{}
	var items []*item
	for _, r := range rendered {
		t := a.Targets[r.Type]
		if t == nil {
			return nil, fmt.Errorf("%s %s (%s): artifacts of type %s cannot be deployed by this api-server", r.Type, r.Name, r.File, r.Type)
		}
		exists, err := t.Exists(ctx, r.Name)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %v", r.Type, r.Name, err)
		}
		if exists {
			if r.CreationPolicy == pack.PolicySkip {
				items = append(items, &item{target: t, prep: Prepared{Rendered: r}, skipped: true})
				continue
			}
			return nil, fmt.Errorf("%s %s (%s) exists already, and its creation_policy is fail", r.Type, r.Name, r.File)
		}
		prep, err := t.Prepare(ctx, r, pending)
		if err != nil {
			return nil, fmt.Errorf("%s %s (%s): %v", r.Type, r.Name, r.File, err)
		}
		pending.add(r.Type, r.Name)
		items = append(items, &item{target: t, prep: prep})
	}
	return items, nil
}

// write writes the items in order, then enables the blueprints that ask
// for it.
func (a *Activator) write(ctx context.Context, items []*item) error {
	for _, it := range items {
		if it.skipped {
			continue
		}
		r := it.prep.Rendered
		c, err := it.target.Write(ctx, it.prep)
		if err != nil {
			// A write that failed may have written still: undo tries.
			it.created = &api.PackCreated{Type: r.Type, Name: r.Name, Checksum: it.prep.Checksum}
			return fmt.Errorf("%s %s (%s): %v", r.Type, r.Name, r.File, err)
		}
		it.created = &c
		if a.Written != nil {
			if err := a.Written(c); err != nil {
				return fmt.Errorf("%s %s (%s): %v", r.Type, r.Name, r.File, err)
			}
		}
	}
	for _, it := range items {
		if rt, ok := it.target.(*records); ok && !it.skipped {
			if err := rt.enable(ctx, it.prep); err != nil {
				return fmt.Errorf("enabling blueprint %s: %v", it.prep.Rendered.Name, err)
			}
		}
	}
	return nil
}

// undo removes what the items' writes created, last first.
func (a *Activator) undo(ctx context.Context, items []*item) error {
	var first error
	for i := len(items) - 1; i >= 0; i-- {
		it := items[i]
		if it.created == nil {
			continue
		}
		if err := it.target.Remove(ctx, *it.created); err != nil && first == nil {
			first = fmt.Errorf("%s %s: %v", it.created.Type, it.created.Name, err)
		}
	}
	return first
}

// Deactivate takes back what an activation or enablement created, last
// first, and nothing else; its rows say what it removed. An activation
// that did not finish is taken back only with Force, and then only the
// artifacts whose content is still what it would have written. The
// common scope is refused while a single-tenant or customer enablement
// of the pack remains.
func (a *Activator) Deactivate(ctx context.Context, req api.PackRequest) ([]api.PackRow, error) {
	if err := checkScope(req); err != nil {
		return nil, err
	}
	st := a.Catalog.Store
	actKey := activationKey(req.Name, req.Scope, req.CustomerTag)
	var act api.PackActivation
	rev, err := st.Get(ctx, api.PackActivationsBucket, actKey, &act)
	if errors.Is(err, store.ErrNotFound) || err == nil && act.Version != req.Version {
		switch req.Scope {
		case pack.ScopeSingleTenant:
			return nil, fmt.Errorf("single-tenant use of pack %s version %s is not enabled", req.Name, req.Version)
		case pack.ScopeCustomer:
			return nil, fmt.Errorf("customer %s of pack %s version %s is not enabled", req.CustomerTag, req.Name, req.Version)
		}
		return nil, fmt.Errorf("%s is not activated", what(req))
	}
	if err != nil {
		return nil, err
	}
	if req.Scope == pack.ScopeCommon {
		acts, err := a.Catalog.Activations(ctx, req.Name)
		if err != nil {
			return nil, err
		}
		for _, o := range acts {
			if o.Scope != pack.ScopeCommon && o.Version == req.Version {
				return nil, fmt.Errorf("%s is %s: %s first", what(req), scopeState(o), undoCommand(o))
			}
		}
	}
	partial := act.State != api.PackActivated
	if partial && !req.Force {
		return nil, fmt.Errorf("%s is only partly deployed (an activation stopped half-way): --force takes back what it wrote", what(req))
	}
	// Marked first: a second deactivation at once finds it changed.
	act.State = api.PackActivating
	if err := st.Put(ctx, api.PackActivationsBucket, actKey, act, rev); err != nil && !partial {
		return nil, fmt.Errorf("%s: %v", what(req), err)
	}
	var rows []api.PackRow
	for i := len(act.Created) - 1; i >= 0; i-- {
		c := act.Created[i]
		t := a.Targets[c.Type]
		if t == nil {
			return nil, fmt.Errorf("%s %s: artifacts of type %s cannot be removed by this api-server", c.Type, c.Name, c.Type)
		}
		if partial {
			item, found, err := t.Deployed(ctx, c.Name)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %v", c.Type, c.Name, err)
			}
			if !found || item.Checksum != c.Checksum {
				continue // never written, or not what it wrote
			}
			if c.Type == pack.TypePipeline {
				c.Version = item.Version
			}
		}
		if err := t.Remove(ctx, c); err != nil {
			// What is left stays recorded, for another try.
			act.Created = act.Created[:i+1]
			_ = st.Put(context.WithoutCancel(ctx), api.PackActivationsBucket, actKey, act, 0)
			return nil, fmt.Errorf("%s: removing %s %s: %v (what is left is still recorded: try again)", what(req), c.Type, c.Name, err)
		}
		row := api.PackRow{Type: c.Type, Name: c.Name, Status: api.PackSuccess, PipelineVersion: c.Version}
		if c.Type == pack.TypeBlueprint {
			row.BlueprintID = c.Name
		}
		rows = append(rows, row)
	}
	if err := st.Delete(ctx, api.PackActivationsBucket, actKey); err != nil {
		return nil, err
	}
	if rows == nil {
		rows = []api.PackRow{}
	}
	return rows, nil
}

// render renders the scope of a pack and fills the placeholders of the
// artifacts' names too ("netops-{{ customer_tag }}": a customer's
// artifacts live beside another's).
func render(p *pack.Pack, scope string, values map[string]string) ([]pack.Rendered, error) {
	rendered, err := p.Render(scope, values)
	if err != nil {
		return nil, err
	}
	for i := range rendered {
		rendered[i].Name = pack.Fill(rendered[i].Name, values)
	}
	return rendered, nil
}

// keepable returns the inputs that may be stored: those of variables
// that are not secret, and references to secrets.
func keepable(m pack.Manifest, inputs map[string]any) map[string]any {
	secretVar := map[string]bool{}
	for _, scope := range pack.Scopes {
		for _, v := range m.VarsOf(scope) {
			secretVar[v.Name] = secretVar[v.Name] || v.Secret
		}
	}
	out := map[string]any{}
	for k, v := range inputs {
		if !secretVar[k] || len(secret.Refs(v)) > 0 && isRef(v) {
			out[k] = v
		}
	}
	return out
}

// isRef reports whether v is a reference to a secret and nothing else.
func isRef(v any) bool {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return false
	}
	_, ok = m[secret.RefKey].(string)
	return ok
}

// enablementInputs are the inputs of an enablement of scope: those its
// activation kept, then its own; a common variable still without a value
// that none of the scope's files uses is given an empty one (a secret
// the activation was given as a value is not kept, and an enablement
// that does not use it need not give it again).
func enablementInputs(p *pack.Pack, scope string, kept, own map[string]any) map[string]any {
	in := map[string]any{}
	for k, v := range kept {
		in[k] = v
	}
	for k, v := range own {
		in[k] = v
	}
	used := map[string]bool{}
	for _, art := range p.Manifest.Artifacts {
		if art.Scope != scope {
			continue
		}
		if data, ok := p.File(art.File); ok {
			for _, n := range pack.Placeholders(data) {
				used[n] = true
			}
		}
		for _, n := range pack.Placeholders([]byte(art.Name)) {
			used[n] = true
		}
	}
	for _, v := range p.Manifest.CommonVars {
		if _, given := in[v.Name]; !given && !used[v.Name] && v.Default == nil {
			in[v.Name] = ""
		}
	}
	return in
}
