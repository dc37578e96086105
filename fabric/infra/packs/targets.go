package packs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/botpackages"
	"github.com/fabricops/fabric/fabric/infra/secret"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/fabricops/fabric/fabric/lib/pack"
	"github.com/fabricops/fabric/fabric/lib/yamldoc"
)

// Target writes, finds and removes the artifacts of one type of a pack.
// An activation calls Prepare for every artifact before it writes the
// first, then Write in order; its undoing and a deactivation call
// Remove with what Write returned.
type Target interface {
	// Exists reports whether the tenant has an artifact of that name.
	Exists(ctx context.Context, name string) (bool, error)
	// Prepare parses and checks a rendered artifact; its file's own name
	// must be the manifest's. What it returns is Write's.
	Prepare(ctx context.Context, r pack.Rendered, pending Pending) (Prepared, error)
	// Write writes a prepared artifact.
	Write(ctx context.Context, p Prepared) (api.PackCreated, error)
	// Remove deletes what Write wrote.
	Remove(ctx context.Context, c api.PackCreated) error
	// Deployed returns what the tenant has of an artifact, for a
	// comparison (found false when none).
	Deployed(ctx context.Context, name string) (item pack.Item, found bool, err error)
}

// Prepared is an artifact made ready to write: its checksum as the
// comparison computes it, and what its target needs.
type Prepared struct {
	Rendered pack.Rendered
	Checksum string
	value    any
}

// Pending names the artifacts an activation writes before the one being
// checked: checks that look an artifact up find them.
type Pending interface {
	// Has reports whether an artifact of typ named name is pending.
	Has(typ, name string) bool
}

// pendingSet is the Pending of an activation, by type and name.
type pendingSet map[string]map[string]bool

func (p pendingSet) Has(typ, name string) bool { return p[typ][name] }

func (p pendingSet) add(typ, name string) {
	if p[typ] == nil {
		p[typ] = map[string]bool{}
	}
	p[typ][name] = true
}

// anyPending finds every artifact: a comparison checks nothing it
// cannot see.
type anyPending struct{}

func (anyPending) Has(string, string) bool { return true }

// Targets are the targets by artifact type.
type Targets map[string]Target

// Env is what the targets reach: the tenant's data layer and store.
type Env struct {
	Data  *tenant.Data
	Store *store.Store
	Now   func() time.Time
}

// NewTargets returns the targets of every type. Datasets are read from
// their files with the data libraries, which this package does not link:
// its dataset target finds, compares and removes datasets but writes
// none (the api-server puts its own in its place).
func NewTargets(e Env) Targets {
	r := &artifact.Repo{Store: e.Store, Now: e.Now}
	t := Targets{
		pack.TypeDataset:    &datasetRecords{data: e.Data},
		pack.TypePipeline:   &pipelines{data: e.Data},
		pack.TypeCredential: &credentials{s: &secret.Store{Store: e.Store, Now: e.Now}},
		pack.TypeStream:     &streamTarget{st: e.Store},
		pack.TypeBotPackage: &botPackages{c: &botpackages.Catalog{Store: e.Store, Now: e.Now, Deployments: func(ctx context.Context, pipelines map[string]bool) ([]string, error) {
			return artifact.DeploymentsRunning(ctx, e.Store, pipelines)
		}}},
	}
	for typ, k := range KindOf {
		t[typ] = &records{repo: r, kind: k, typ: typ}
	}
	return t
}

// KindOf maps the pack types kept as artifact records to their kinds.
var KindOf = map[string]*artifact.Kind{
	pack.TypeStack:         artifact.Stack,
	pack.TypeSiteProfile:   artifact.SiteProfile,
	pack.TypeFmtTemplate:   artifact.FmtTemplate,
	pack.TypeStagingArea:   artifact.StagingArea,
	pack.TypeBlueprint:     artifact.Deployment,
	pack.TypeSchedule:      artifact.Schedule,
	pack.TypeEventEndpoint: artifact.EventEndpoint,
	pack.TypeSubscription:  artifact.Subscription,
	pack.TypeSynthetics:    artifact.Synthetics,
	pack.TypeAlertRules:    artifact.AlertRules,
	pack.TypeDashboard:     artifact.Dashboard,
	pack.TypeDashGroup:     artifact.DashGroup,
}

// typeOfKind is KindOf backwards.
func typeOfKind(k *artifact.Kind) string {
	for t, kk := range KindOf {
		if kk == k {
			return t
		}
	}
	return ""
}

// records is the target of an artifact kind.
type records struct {
	repo *artifact.Repo
	kind *artifact.Kind
	typ  string
}

// record is a prepared record.
type record struct {
	doc    *artifact.Doc
	source string
	enable bool
}

func (t *records) Exists(ctx context.Context, name string) (bool, error) {
	_, err := t.repo.Get(ctx, t.kind, name)
	if errors.Is(err, artifact.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

func (t *records) Prepare(ctx context.Context, r pack.Rendered, pending Pending) (Prepared, error) {
	d, err := artifact.Parse(r.Data)
	if err != nil {
		return Prepared{}, err
	}
	if name, _ := d.String(t.kind.Key); name != r.Name {
		return Prepared{}, fmt.Errorf("its %s is %q, the manifest names it %q", t.kind.Key, name, r.Name)
	}
	repo := *t.repo
	repo.Pending = func(k *artifact.Kind, name string) bool {
		if k == nil {
			return pending.Has(pack.TypePipeline, name)
		}
		return pending.Has(typeOfKind(k), name)
	}
	if err := repo.Validate(ctx, t.kind, d); err != nil {
		return Prepared{}, err
	}
	enable := false
	if t.kind == artifact.Deployment {
		enable = true
		if raw := d.Raw("enabled"); raw != nil {
			_ = json.Unmarshal(raw, &enable)
		}
	}
	sum, err := pack.Checksum(t.typ, d.JSON())
	if err != nil {
		return Prepared{}, err
	}
	source := "yaml"
	if len(r.Data) > 0 && firstNonSpace(r.Data) == '{' {
		source = "json"
	}
	return Prepared{Rendered: r, Checksum: sum, value: &record{doc: d, source: source, enable: enable}}, nil
}

func firstNonSpace(b []byte) byte {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return c
		}
	}
	return 0
}

func (t *records) Write(ctx context.Context, p Prepared) (api.PackCreated, error) {
	rec := p.value.(*record)
	if t.kind == artifact.Deployment {
		rec.doc.SetValue("enabled", false)
	}
	c := api.PackCreated{Type: t.typ, Name: p.Rendered.Name, Checksum: p.Checksum}
	// Prepare validated it, against the pack's own artifacts too.
	_, err := t.repo.AddChecked(ctx, t.kind, rec.doc, rec.source, false)
	return c, err
}

// Enable enables a blueprint written disabled, when its document asks.
func (t *records) enable(ctx context.Context, p Prepared) error {
	if rec, ok := p.value.(*record); ok && t.kind == artifact.Deployment && rec.enable {
		_, err := t.repo.SetEnabled(ctx, t.kind, p.Rendered.Name, true)
		return err
	}
	return nil
}

func (t *records) Remove(ctx context.Context, c api.PackCreated) error {
	err := t.repo.Delete(ctx, t.kind, c.Name)
	if errors.Is(err, artifact.ErrNotFound) {
		return nil
	}
	return err
}

func (t *records) Deployed(ctx context.Context, name string) (pack.Item, bool, error) {
	rec, err := t.repo.Get(ctx, t.kind, name)
	if errors.Is(err, artifact.ErrNotFound) {
		return pack.Item{}, false, nil
	}
	if err != nil {
		return pack.Item{}, false, err
	}
	js := rec.Doc.JSON()
	sum, err := pack.Checksum(t.typ, js)
	if err != nil {
		return pack.Item{}, false, err
	}
	text, _ := rec.Doc.YAML()
	version, _ := rec.Doc.String("version")
	return pack.Item{Type: t.typ, Name: name, Version: version, Checksum: sum, Text: text}, true, nil
}

// pipelines is the pipeline target: an artifact is a pipeline document
// (as 'pipeline add' reads), written as the pipeline's next version.
type pipelines struct{ data *tenant.Data }

func (t *pipelines) Exists(ctx context.Context, name string) (bool, error) {
	vs, err := t.data.PipelineVersions(ctx, name)
	if errors.Is(err, tenant.ErrNoPipeline) {
		return false, nil
	}
	return len(vs) > 0, err
}

func (t *pipelines) Prepare(_ context.Context, r pack.Rendered, _ Pending) (Prepared, error) {
	p, err := tenant.LoadPipeline(r.Data, r.File)
	if err != nil {
		return Prepared{}, err
	}
	if p.Name == "" {
		p.Name = r.Name
	}
	if p.Name != r.Name {
		return Prepared{}, fmt.Errorf("its name is %q, the manifest names it %q", p.Name, r.Name)
	}
	if p.Pipetype == "" {
		p.Pipetype = api.PipetypePublished
	}
	// A pipeline pack create wrote keeps the form it was kept in.
	var kept struct {
		Format string `json:"format"`
	}
	if json.Unmarshal(r.Data, &kept) == nil && slices.Contains([]string{"yaml", "json", "text"}, kept.Format) {
		p.Format = kept.Format
	}
	return Prepared{Rendered: r, Checksum: pipelineChecksum(p), value: p}, nil
}

// pipelineChecksum is a pipeline's checksum: of what it does and says,
// not of its version, time or the form it was written in.
func pipelineChecksum(p api.Pipeline) string {
	p.Version, p.SavedTime, p.Format, p.HTMLData = "", "", "", ""
	data, _ := json.Marshal(p)
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func (t *pipelines) Write(ctx context.Context, p Prepared) (api.PackCreated, error) {
	added, err := t.data.AddPipeline(ctx, p.value.(api.Pipeline))
	if err != nil {
		return api.PackCreated{}, err
	}
	return api.PackCreated{Type: pack.TypePipeline, Name: added.Name, Version: added.Version, Checksum: p.Checksum}, nil
}

func (t *pipelines) Remove(ctx context.Context, c api.PackCreated) error {
	vs, err := t.data.PipelineVersions(ctx, c.Name)
	if errors.Is(err, tenant.ErrNoPipeline) {
		return nil // deleted by someone else meanwhile
	}
	if err != nil {
		return err
	}
	for _, v := range vs {
		if v.Version == c.Version {
			return t.data.DeletePipeline(ctx, c.Name, c.Version)
		}
	}
	return nil
}

func (t *pipelines) Deployed(ctx context.Context, name string) (pack.Item, bool, error) {
	vs, err := t.data.PipelineVersions(ctx, name)
	if errors.Is(err, tenant.ErrNoPipeline) || err == nil && len(vs) == 0 {
		return pack.Item{}, false, nil
	}
	if err != nil {
		return pack.Item{}, false, err
	}
	latest := vs[len(vs)-1]
	text, _ := json.MarshalIndent(latest.Data, "", "  ")
	return pack.Item{Type: pack.TypePipeline, Name: name, Version: latest.Version, Checksum: pipelineChecksum(latest), Text: text}, true, nil
}

// credential is a credential artifact's file: a secret's name, its
// description and its value (a string, or a mapping kept as JSON).
type credential struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Value       any    `yaml:"value"`
}

// credentials is the credential target: secrets, stored encrypted. A
// credential's value is never part of a checksum or a report.
type credentials struct{ s *secret.Store }

func (t *credentials) Exists(ctx context.Context, name string) (bool, error) {
	_, err := t.s.Info(ctx, name)
	if errors.Is(err, secret.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

func (t *credentials) Prepare(_ context.Context, r pack.Rendered, _ Pending) (Prepared, error) {
	var c credential
	if err := yamldoc.Unmarshal(r.Data, &c, yamldoc.Limits{}, true); err != nil {
		return Prepared{}, err
	}
	if c.Name != r.Name {
		return Prepared{}, fmt.Errorf("its name is %q, the manifest names it %q", c.Name, r.Name)
	}
	if c.Value == nil || c.Value == "" {
		return Prepared{}, errors.New("a credential needs a value (a {{ variable }} given in --inputs, or a secret reference)")
	}
	return Prepared{Rendered: r, Checksum: credentialChecksum(c.Name, c.Description), value: c}, nil
}

// credentialChecksum is a credential's checksum: of its name and
// description only.
func credentialChecksum(name, description string) string {
	data, _ := json.Marshal([]string{name, description})
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func (t *credentials) Write(ctx context.Context, p Prepared) (api.PackCreated, error) {
	c := p.value.(credential)
	var value []byte
	switch v := c.Value.(type) {
	case string:
		value = []byte(v)
	default:
		data, err := json.Marshal(v)
		if err != nil {
			return api.PackCreated{}, fmt.Errorf("its value: %v", err)
		}
		value = data
	}
	if _, err := t.s.Put(ctx, c.Name, c.Description, value, false); err != nil {
		return api.PackCreated{}, err
	}
	return api.PackCreated{Type: pack.TypeCredential, Name: c.Name, Checksum: p.Checksum}, nil
}

func (t *credentials) Remove(ctx context.Context, c api.PackCreated) error {
	err := t.s.Delete(ctx, c.Name)
	if errors.Is(err, secret.ErrNotFound) {
		return nil
	}
	return err
}

func (t *credentials) Deployed(ctx context.Context, name string) (pack.Item, bool, error) {
	info, err := t.s.Info(ctx, name)
	if errors.Is(err, secret.ErrNotFound) {
		return pack.Item{}, false, nil
	}
	if err != nil {
		return pack.Item{}, false, err
	}
	return pack.Item{Type: pack.TypeCredential, Name: name, Checksum: credentialChecksum(info.Name, info.Description)}, true, nil
}

// streamDoc is a stream artifact's file.
type streamDoc struct {
	Name           string  `yaml:"name" json:"name"`
	Description    string  `yaml:"description,omitempty" json:"description,omitempty"`
	RetentionHours float64 `yaml:"retention_hours,omitempty" json:"retention_hours,omitempty"`
	MaxSizeMB      float64 `yaml:"max_size_mb,omitempty" json:"max_size_mb,omitempty"`
	MaxMessages    int64   `yaml:"max_messages,omitempty" json:"max_messages,omitempty"`
}

// streamTarget is the persistent stream target.
type streamTarget struct{ st *store.Store }

func (t *streamTarget) Exists(ctx context.Context, name string) (bool, error) {
	return streams.Exists(ctx, t.st.JetStream(), name)
}

func (t *streamTarget) Prepare(_ context.Context, r pack.Rendered, _ Pending) (Prepared, error) {
	var d streamDoc
	if err := yamldoc.Unmarshal(r.Data, &d, yamldoc.Limits{}, true); err != nil {
		return Prepared{}, err
	}
	if d.Name != r.Name {
		return Prepared{}, fmt.Errorf("its name is %q, the manifest names it %q", d.Name, r.Name)
	}
	if err := streams.CheckName(d.Name); err != nil {
		return Prepared{}, err
	}
	if d.RetentionHours < 0 || d.MaxSizeMB < 0 || d.MaxMessages < 0 {
		return Prepared{}, errors.New("retention_hours, max_size_mb and max_messages cannot be negative")
	}
	return Prepared{Rendered: r, Checksum: streamChecksum(d), value: d}, nil
}

func streamChecksum(d streamDoc) string {
	data, _ := json.Marshal(d)
	sum, _ := pack.Checksum(pack.TypeStream, data)
	return sum
}

func (t *streamTarget) Write(ctx context.Context, p Prepared) (api.PackCreated, error) {
	d := p.value.(streamDoc)
	_, err := streams.Add(ctx, t.st.JetStream(), streams.Config{Name: d.Name, Description: d.Description,
		MaxAge: time.Duration(d.RetentionHours * float64(time.Hour)), MaxBytes: int64(d.MaxSizeMB * (1 << 20)), MaxMsgs: d.MaxMessages})
	if err != nil {
		return api.PackCreated{}, err
	}
	return api.PackCreated{Type: pack.TypeStream, Name: d.Name, Checksum: p.Checksum}, nil
}

func (t *streamTarget) Remove(ctx context.Context, c api.PackCreated) error {
	err := streams.Delete(ctx, t.st.JetStream(), c.Name)
	if errors.Is(err, streams.ErrNotFound) {
		return nil
	}
	return err
}

func (t *streamTarget) Deployed(ctx context.Context, name string) (pack.Item, bool, error) {
	info, err := streams.Get(ctx, t.st.JetStream(), name)
	if errors.Is(err, streams.ErrNotFound) {
		return pack.Item{}, false, nil
	}
	if err != nil {
		return pack.Item{}, false, err
	}
	d := streamDoc{Name: info.Name, Description: info.Description, RetentionHours: info.RetentionHours, MaxSizeMB: info.MaxSizeMB, MaxMessages: info.MaxMessages}
	text, _ := json.MarshalIndent(d, "", "  ")
	return pack.Item{Type: pack.TypeStream, Name: name, Checksum: streamChecksum(d), Text: text}, true, nil
}

// datasetRecords is the dataset target of a process without the data
// libraries: it finds, compares (by rows and columns) and removes
// datasets, and writes none.
type datasetRecords struct{ data *tenant.Data }

func (t *datasetRecords) Exists(ctx context.Context, name string) (bool, error) {
	return t.data.DatasetExists(ctx, name)
}

func (t *datasetRecords) Prepare(_ context.Context, r pack.Rendered, _ Pending) (Prepared, error) {
	return Prepared{Rendered: r, Checksum: r.Checksum}, nil
}

func (t *datasetRecords) Write(context.Context, Prepared) (api.PackCreated, error) {
	return api.PackCreated{}, errors.New("datasets are written by the api-server")
}

func (t *datasetRecords) Remove(ctx context.Context, c api.PackCreated) error {
	err := t.data.DeleteDataset(ctx, c.Name)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	return err
}

func (t *datasetRecords) Deployed(ctx context.Context, name string) (pack.Item, bool, error) {
	return DeployedDataset(ctx, t.data, name)
}

// DeployedDataset is what a comparison sees of a dataset: its rows and
// columns (its data is not read).
func DeployedDataset(ctx context.Context, data *tenant.Data, name string) (pack.Item, bool, error) {
	ds, err := data.Dataset(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		return pack.Item{}, false, nil
	}
	if err != nil {
		return pack.Item{}, false, err
	}
	return pack.Item{Type: pack.TypeDataset, Name: name, Checksum: fmt.Sprintf("rows:%d,columns:%d", ds.NumRows, ds.NumColumns)}, true, nil
}
