package blueprint

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/lib/botquery"
)

// Lookup is what the analyses read of a fabric.
type Lookup interface {
	// PipelineVersions returns every version of a pipeline, oldest
	// first (none, without an error, when there is no such pipeline).
	PipelineVersions(ctx context.Context, name string) ([]api.Pipeline, error)
	// WorkerSites returns the site of each live worker.
	WorkerSites(ctx context.Context) ([]string, error)
	// StreamExists and DatasetExists tell whether a stream or a dataset
	// of that name exists.
	StreamExists(ctx context.Context, name string) (bool, error)
	DatasetExists(ctx context.Context, name string) (bool, error)
}

// Resolve returns the version of an entry's pipeline a deployment runs:
// the entry's version, or the latest published one for "*". ok is false
// (with the reason) when there is none.
func Resolve(versions []api.Pipeline, e Entry) (p api.Pipeline, ok bool, why string) {
	if len(versions) == 0 {
		return p, false, fmt.Sprintf("no pipeline named %q", e.Name)
	}
	for i := len(versions) - 1; i >= 0; i-- {
		v := versions[i]
		if v.Pipetype != "" && v.Pipetype != api.PipetypePublished {
			continue
		}
		if e.AnyVersion() || v.Version == string(e.Version) {
			return v, true, ""
		}
	}
	if e.AnyVersion() {
		return p, false, fmt.Sprintf("pipeline %q has no published version", e.Name)
	}
	return p, false, fmt.Sprintf("pipeline %q has no published version %s", e.Name, e.Version)
}

// Dependency is an artifact a blueprint's pipelines use (deployment
// dependencies: type, name, read, write).
type Dependency struct {
	Type  string `json:"type"`
	Name  string `json:"name"`
	Read  bool   `json:"read"`
	Write bool   `json:"write"`
}

// Dependency types.
const (
	DepPipeline = "pipeline"
	DepDataset  = "dataset"
	DepStream   = "stream"
	DepObject   = "object"
)

// stepUses are the parameters of the bots that read or write an
// artifact: the dependency type, the parameter naming it, and whether the
// bot reads or writes it.
var stepUses = map[string]struct {
	typ, param  string
	read, write bool
}{
	"@dm:recall":            {DepDataset, "name", true, false},
	"@dm:savedlist":         {DepDataset, "name", true, false},
	"@dm:enrich":            {DepDataset, "dict", true, false},
	"@c:data-loop":          {DepDataset, "dataset", true, false},
	"@dm:save":              {DepDataset, "name", false, true},
	"@dm:delete-dataset":    {DepDataset, "name", false, true},
	"@dm:read-stream":       {DepStream, "name", true, false},
	"@dm:write-stream":      {DepStream, "name", false, true},
	api.BotLogarchiveReplay: {DepStream, "stream", false, true},
}

// PipelineUses returns what a pipeline reads and writes: its declared
// artifacts and those its steps name (temp- datasets, which live only
// for the job, left out), sorted by type and name.
func PipelineUses(p api.Pipeline) []Dependency {
	deps := map[[2]string]*Dependency{}
	add := func(typ, name string, read, write bool) {
		if name == "" || typ == DepDataset && strings.HasPrefix(name, "temp-") {
			return
		}
		d := deps[[2]string{typ, name}]
		if d == nil {
			d = &Dependency{Type: typ, Name: name}
			deps[[2]string{typ, name}] = d
		}
		d.Read, d.Write = d.Read || read, d.Write || write
	}
	for _, a := range p.Artifacts {
		access := strings.ToLower(a.Access)
		add(strings.ToLower(a.ArtifactType), a.ArtifactName, access == "" || strings.Contains(access, "read"), strings.Contains(access, "write"))
	}
	for _, s := range p.Data.Sequence {
		u, ok := stepUses[s.Tag]
		if !ok {
			continue
		}
		params, err := botquery.Parse(s.Query)
		if err != nil {
			continue
		}
		add(u.typ, params[u.param], u.read, u.write)
	}
	return sortDeps(deps)
}

func sortDeps(deps map[[2]string]*Dependency) []Dependency {
	out := make([]Dependency, 0, len(deps))
	for _, d := range deps {
		out = append(out, *d)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Type != out[j].Type {
			return out[i].Type < out[j].Type
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// SystemStreams are the system streams every deployment writes: its
// activity (the controller's) and its jobs' trace summaries.
var SystemStreams = []string{api.StreamDeploymentUpdates, api.StreamTraceSummaries}

// Resolved is an entry with the pipeline version it runs (ok false when
// there is none; why says why).
type Resolved struct {
	Listed
	Pipeline api.Pipeline
	OK       bool
	Why      string
}

// ResolveAll resolves every entry of b.
func ResolveAll(ctx context.Context, l Lookup, b *Blueprint) ([]Resolved, error) {
	var out []Resolved
	cache := map[string][]api.Pipeline{}
	for _, e := range b.Entries() {
		versions, seen := cache[e.Name]
		if !seen {
			var err error
			if versions, err = l.PipelineVersions(ctx, e.Name); err != nil {
				return nil, err
			}
			cache[e.Name] = versions
		}
		p, ok, why := Resolve(versions, e.Entry)
		out = append(out, Resolved{Listed: e, Pipeline: p, OK: ok, Why: why})
	}
	return out, nil
}

// Dependencies returns what a blueprint depends on: its pipelines (read),
// what they read and write, and the system streams it writes.
func Dependencies(rs []Resolved) []Dependency {
	deps := map[[2]string]*Dependency{}
	merge := func(d Dependency) {
		k := [2]string{d.Type, d.Name}
		if have := deps[k]; have != nil {
			have.Read, have.Write = have.Read || d.Read, have.Write || d.Write
			return
		}
		deps[k] = &d
	}
	for _, r := range rs {
		merge(Dependency{Type: DepPipeline, Name: r.Name, Read: true})
		if r.OK {
			for _, d := range PipelineUses(r.Pipeline) {
				merge(d)
			}
		}
	}
	if len(rs) > 0 {
		for _, s := range SystemStreams {
			merge(Dependency{Type: DepStream, Name: s, Write: true})
		}
	}
	return sortDeps(deps)
}
