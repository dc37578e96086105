package backup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/fabricops/fabric/fabric/lib/pipeline"
)

// What a step of a setup does to the tenant.
const (
	doAdd     = "add"
	doReplace = "replace"
	doNothing = "unchanged"
	doSkip    = "skipped"
	doKeep    = "kept"
)

// step is one document of a setup directory and what setup does with it.
type step struct {
	dir, file, name string
	kind            *artifact.Kind // an artifact's kind
	doc             *artifact.Doc
	source          string
	pipe            *api.Pipeline
	stream          *StreamDef
	mapping         *Mapping
	do              string
	detail          string
}

// plan is a setup under way: its steps, in the order they are pushed.
type plan struct {
	src            *Source
	opts           SetupOptions
	res            *SetupResult
	steps          []*step
	pending        map[*artifact.Kind]map[string]bool // kind nil: pipelines
	onlyPipes      *only
	onlyBlueprints *only
}

func (p *plan) warn(format string, args ...any) {
	p.res.Warnings = append(p.res.Warnings, fmt.Sprintf(format, args...))
}

// read reads a folder's files into steps.
func (p *plan) read(ctx context.Context, f folder, files []file) error {
	seen := map[string]string{}
	for _, fl := range files {
		s := &step{dir: f.dir, file: fl.path, kind: f.kind}
		if err := p.parse(s, fl.data); err != nil {
			return fmt.Errorf("%s: %v", fl.path, err)
		}
		key := s.name
		if s.pipe != nil {
			key += "." + s.pipe.Version
		}
		if other, dup := seen[key]; dup {
			return fmt.Errorf("%s: %s is in %s too", fl.path, s.name, filepath.Base(other))
		}
		seen[key] = fl.path
		if s.do != doSkip {
			if p.pending[s.kind] == nil {
				p.pending[s.kind] = map[string]bool{}
			}
			p.pending[s.kind][s.name] = true
		}
		p.steps = append(p.steps, s)
	}
	return nil
}

// parse reads one file into its step.
func (p *plan) parse(s *step, data []byte) error {
	switch s.dir {
	case "pipelines":
		pl, err := tenant.LoadPipeline(data, s.file)
		if err != nil {
			return err
		}
		if pl.Format != pipeline.FormText {
			// A backup's record keeps the form it was added in.
			if d, err := artifact.Parse(data); err == nil {
				if f, ok := d.String("format"); ok && f != "" {
					pl.Format = f
				}
			}
		}
		s.pipe, s.name = &pl, pl.Name
		if !p.onlyPipes.takes(pl.Name) {
			s.do = doSkip
		}
		return nil
	case "pstreams":
		var def StreamDef
		if err := strictDecode(data, &def); err != nil {
			return err
		}
		if err := streams.CheckName(def.Name); err != nil {
			return fmt.Errorf("name: %v", err)
		}
		if def.RetentionHours < 0 || def.MaxSizeMB < 0 || def.MaxMessages < 0 {
			return errors.New("retention_hours, max_size_mb and max_messages are 0 (no limit) or more")
		}
		s.stream, s.name = &def, def.Name
		return nil
	case "mappings":
		var m Mapping
		if err := strictDecode(data, &m); err != nil {
			return err
		}
		if m.Deployment == "" {
			return errors.New("deployment: a mapping names its deployment's id")
		}
		s.mapping, s.name = &m, m.Deployment
		if p.onlyBlueprints != nil && !p.onlyBlueprints.names[m.Deployment] && !p.onlyBlueprints.names[m.Name] {
			s.do = doSkip
		}
		return nil
	}
	d, err := artifact.Parse(data)
	if err != nil {
		return err
	}
	name, ok := d.String(s.kind.Key)
	if !ok || strings.TrimSpace(name) == "" {
		return fmt.Errorf("invalid %s: %s must be a non-empty string", s.kind.Name, s.kind.Key)
	}
	s.doc, s.name, s.source = d, name, "json"
	if t := strings.TrimSpace(string(data)); !strings.HasPrefix(t, "{") {
		s.source = "yaml"
	}
	if s.kind == artifact.Deployment {
		title, _ := d.String("name")
		if !p.onlyBlueprints.takes(name, title) {
			s.do = doSkip
		}
	}
	return nil
}

// strictDecode decodes a JSON or YAML document into v, refusing fields
// v does not have.
func strictDecode(data []byte, v any) error {
	d, err := artifact.Parse(data)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(strings.NewReader(string(d.JSON())))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

// webhook adds the webhook endpoint of settings.json to the endpoints.
func (p *plan) webhook(w *WebhookSettings) error {
	if w == nil {
		if p.opts.Port != DefaultWebhookPort || p.opts.Protocol != "https" {
			p.warn("%s names no webhook endpoint: --port and --protocol are not used", SettingsName)
		}
		return nil
	}
	doc := artifact.NewDoc()
	doc.SetValue("name", w.Name)
	doc.SetValue("type", api.EndpointWebhook)
	doc.SetValue("protocol", p.opts.Protocol)
	doc.SetValue("port", p.opts.Port)
	doc.SetValue("stream", cmpOr(w.Stream, w.Name))
	doc.SetValue("path", cmpOr(w.Path, "/"))
	if w.Site != "" {
		doc.SetValue("site", w.Site)
	}
	doc.SetValue("enabled", true)
	s := &step{dir: "endpoints", file: filepath.Join(p.opts.Dir, SettingsName), kind: artifact.EventEndpoint, doc: doc, name: w.Name, source: "json"}
	for i, other := range p.steps {
		if other.kind == artifact.EventEndpoint && other.name == w.Name {
			p.warn("the webhook of %s replaces %s", SettingsName, other.file)
			p.steps[i] = s
			return nil
		}
	}
	if p.pending[artifact.EventEndpoint] == nil {
		p.pending[artifact.EventEndpoint] = map[string]bool{}
	}
	p.pending[artifact.EventEndpoint][w.Name] = true
	p.steps = append(p.steps, s)
	return nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// check checks every step against the tenant and says what it will do;
// nothing is written.
func (p *plan) check(ctx context.Context) error {
	repo := *p.src.Repo
	repo.Pending = func(k *artifact.Kind, name string) bool { return p.pending[k][name] }
	for _, s := range p.steps {
		if s.do == doSkip || s.mapping != nil {
			continue
		}
		var err error
		switch {
		case s.doc != nil:
			err = p.checkDoc(ctx, &repo, s)
		case s.pipe != nil:
			s.do = doAdd
			if _, _, versioned := pipeline.ParseVersion(s.pipe.Version); versioned {
				var st string
				st, err = p.src.Data.RestorePipeline(ctx, *s.pipe, true)
				if st == tenant.RestoreUnchanged {
					s.do = doNothing
				}
			} else {
				// Set up again, a pipeline without a version is
				// left alone when its latest version holds it.
				var same bool
				if same, err = p.src.Data.SameAsLatest(ctx, *s.pipe); same {
					s.do = doNothing
				}
			}
		case s.stream != nil:
			var cur streams.Info
			cur, err = streams.Get(ctx, p.src.JS, s.name)
			switch {
			case errors.Is(err, streams.ErrNotFound):
				s.do, err = doAdd, nil
			case err != nil:
			case streamDef(cur) == *s.stream:
				s.do = doNothing
			default:
				s.do = doKeep
				s.detail = "exists with another definition: kept (delete it first to make it anew)"
				p.warn("stream %s exists with another definition: kept as it is", s.name)
			}
		}
		if err != nil {
			return fmt.Errorf("%s: %v", s.file, err)
		}
	}
	return nil
}

// checkDoc validates an artifact and compares it with the tenant's.
func (p *plan) checkDoc(ctx context.Context, repo *artifact.Repo, s *step) error {
	if err := repo.Validate(ctx, s.kind, s.doc); err != nil {
		return err
	}
	cur, err := repo.Get(ctx, s.kind, s.name)
	switch {
	case errors.Is(err, artifact.ErrNotFound):
		s.do = doAdd
	case err != nil:
		return err
	case sameDoc(s.kind, cur.Doc, s.doc):
		s.do = doNothing
	default:
		s.do = doReplace
	}
	if s.kind == artifact.EventEndpoint && s.do != doNothing && p.src.CheckPort != nil {
		p.checkPort(ctx, s)
	}
	return nil
}

// checkPort warns when an enabled endpoint's port is another tenant's on
// the gateways: the record is set up as it is (a restore is faithful),
// and it will not listen until its port changes.
func (p *plan) checkPort(ctx context.Context, s *step) {
	var ep struct {
		Type    string `json:"type"`
		Port    int    `json:"port"`
		Site    string `json:"site"`
		Enabled *bool  `json:"enabled"`
	}
	if json.Unmarshal(s.doc.JSON(), &ep) != nil || (ep.Enabled != nil && !*ep.Enabled) || ep.Port <= 0 {
		return
	}
	if err := p.src.CheckPort(ctx, ep.Type, ep.Port, ep.Site); err != nil {
		s.detail = err.Error()
		p.warn("endpoint %s: %v: it will not listen until its port changes ('client event-endpoint add --file F --overwrite')", s.name, err)
	}
}

// sameDoc reports whether two documents of a kind are the same record:
// saved_time aside, enabled true when a toggling kind's says nothing.
func sameDoc(k *artifact.Kind, a, b *artifact.Doc) bool {
	norm := func(d *artifact.Doc) any {
		v, err := d.Decode()
		m, ok := v.(map[string]any)
		if err != nil || !ok {
			return nil
		}
		delete(m, "saved_time")
		if _, has := m["enabled"]; k.Toggle && !has {
			m["enabled"] = true
		}
		return m
	}
	return reflect.DeepEqual(norm(a), norm(b))
}

// apply writes what check found to do, in order.
func (p *plan) apply(ctx context.Context) error {
	for _, s := range p.steps {
		if s.do != doAdd && s.do != doReplace {
			continue
		}
		var err error
		switch {
		case s.doc != nil:
			_, err = p.src.Repo.AddChecked(ctx, s.kind, s.doc, s.source, true)
		case s.pipe != nil:
			if _, _, versioned := pipeline.ParseVersion(s.pipe.Version); versioned {
				_, err = p.src.Data.RestorePipeline(ctx, *s.pipe, false)
			} else {
				var added api.Pipeline
				added, err = p.src.Data.AddPipeline(ctx, *s.pipe)
				s.detail = "version " + added.Version
			}
		case s.stream != nil:
			_, err = streams.Add(ctx, p.src.JS, s.stream.Config())
		}
		if err != nil {
			return fmt.Errorf("%s: %v (what is above it in the setup's order was pushed)", s.file, err)
		}
	}
	return nil
}

// checkMappings compares each mapping of the directory with the one the
// tenant's deployments (or, verifying, those setup would push) derive,
// then makes the rows.
func (p *plan) checkMappings(ctx context.Context) error {
	versions := dataVersions(p.src.Data)
	if p.opts.VerifyOnly {
		versions = p.plannedVersions(versions)
	}
	for _, s := range p.steps {
		if s.mapping == nil || s.do == doSkip {
			continue
		}
		dep := p.plannedDeployment(s.mapping.Deployment)
		if dep == nil {
			rec, err := p.src.Repo.Get(ctx, artifact.Deployment, s.mapping.Deployment)
			if errors.Is(err, artifact.ErrNotFound) {
				s.do = StatusNoDeployment
				p.warn("mapping %s: no deployment %q", s.name, s.mapping.Deployment)
				continue
			}
			if err != nil {
				return err
			}
			dep = rec.Doc
		}
		got, err := MappingOf(ctx, dep, versions)
		if err != nil {
			return fmt.Errorf("%s: %v", s.file, err)
		}
		want := *s.mapping
		if reflect.DeepEqual(normalMapping(got), normalMapping(want)) {
			s.do = StatusMatches
			continue
		}
		s.do = StatusDiffers
		s.detail = mappingDifference(want, got)
		p.warn("mapping %s differs: %s", s.name, s.detail)
	}
	for _, s := range p.steps {
		p.res.Rows = append(p.res.Rows, SetupRow{Kind: s.dir, Name: s.name, Status: p.status(s), Detail: s.detail})
	}
	return nil
}

// status is a step's status as the rows say it.
func (p *plan) status(s *step) string {
	switch s.do {
	case doAdd:
		if p.opts.VerifyOnly {
			return StatusWouldAdd
		}
		return StatusAdded
	case doReplace:
		if p.opts.VerifyOnly {
			return StatusWouldReplace
		}
		return StatusReplaced
	case doKeep:
		return StatusKept
	}
	return s.do
}

// plannedDeployment is the deployment id setup pushes (nil: none).
func (p *plan) plannedDeployment(id string) *artifact.Doc {
	for _, s := range p.steps {
		if s.kind == artifact.Deployment && s.name == id && s.do != doSkip {
			return s.doc
		}
	}
	return nil
}

// plannedVersions are the tenant's versions of a pipeline with those
// setup would restore.
func (p *plan) plannedVersions(stored VersionsFunc) VersionsFunc {
	return func(ctx context.Context, name string) ([]api.Pipeline, error) {
		vs, err := stored(ctx, name)
		if err != nil {
			return nil, err
		}
		for _, s := range p.steps {
			if s.pipe == nil || s.do != doAdd || s.pipe.Name != name {
				continue
			}
			if _, _, ok := pipeline.ParseVersion(s.pipe.Version); ok {
				vs = append(vs, *s.pipe)
			}
		}
		sortVersions(vs)
		return vs, nil
	}
}

func normalMapping(m Mapping) Mapping {
	bs := make([]Binding, len(m.Bindings))
	for i, b := range m.Bindings {
		if b.Reads == nil {
			b.Reads = []string{}
		}
		if b.Writes == nil {
			b.Writes = []string{}
		}
		bs[i] = b
	}
	m.Bindings = bs
	return m
}

// mappingDifference says how two mappings of a deployment differ: the
// first binding that does.
func mappingDifference(want, got Mapping) string {
	if len(want.Bindings) != len(got.Bindings) {
		return fmt.Sprintf("%d pipelines, where the backup has %d", len(got.Bindings), len(want.Bindings))
	}
	for i := range want.Bindings {
		w, g := normalMapping(want).Bindings[i], normalMapping(got).Bindings[i]
		if reflect.DeepEqual(w, g) {
			continue
		}
		switch {
		case w.Pipeline != g.Pipeline:
			return fmt.Sprintf("pipeline %s where the backup has %s", g.Pipeline, w.Pipeline)
		case w.Version != g.Version:
			return fmt.Sprintf("%s runs version %q where the backup's ran %q", g.Pipeline, g.Version, w.Version)
		default:
			return fmt.Sprintf("%s reads %v and writes %v, where the backup's read %v and wrote %v", g.Pipeline, g.Reads, g.Writes, w.Reads, w.Writes)
		}
	}
	return "its name differs"
}
