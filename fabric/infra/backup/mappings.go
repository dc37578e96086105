package backup

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/blueprint"
	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/fabricops/fabric/fabric/lib/pipeline"
)

// A mapping is derived, not stored: for one deployment (blueprint), the
// streams each of its pipelines reads and writes, with the pipeline
// version the deployment runs (its own, or the latest published one for
// "*"). A backup keeps them so that a setup can check that the restored
// deployments bind the same pipelines to the same streams.
type Mapping struct {
	Deployment string    `json:"deployment"`
	Name       string    `json:"name"`
	Bindings   []Binding `json:"bindings"`
}

// Binding is one pipeline of a deployment and the streams it uses.
type Binding struct {
	Pipeline string `json:"pipeline"`
	// List is the deployment's list the entry is in: service,
	// scheduled or action.
	List string `json:"list"`
	// Version is the version the deployment runs ("" when none
	// resolves; Unresolved says why).
	Version    string   `json:"version"`
	Unresolved string   `json:"unresolved,omitempty"`
	Reads      []string `json:"reads"`
	Writes     []string `json:"writes"`
}

// VersionsFunc returns every version of a pipeline, oldest first (none
// when there is no such pipeline).
type VersionsFunc func(ctx context.Context, name string) ([]api.Pipeline, error)

// dataVersions is VersionsFunc of a tenant.
func dataVersions(d *tenant.Data) VersionsFunc {
	return func(ctx context.Context, name string) ([]api.Pipeline, error) {
		vs, err := d.PipelineVersions(ctx, name)
		if errors.Is(err, tenant.ErrNoPipeline) {
			return nil, nil
		}
		return vs, err
	}
}

// MappingOf derives the mapping of a deployment's document.
func MappingOf(ctx context.Context, d *artifact.Doc, versions VersionsFunc) (Mapping, error) {
	b, err := blueprint.Parse(d.JSON())
	if err != nil {
		return Mapping{}, err
	}
	m := Mapping{Deployment: b.ID, Name: b.Name, Bindings: []Binding{}}
	for _, e := range b.Entries() {
		vs, err := versions(ctx, e.Name)
		if err != nil {
			return m, err
		}
		bd := Binding{Pipeline: e.Name, List: e.Kind, Reads: []string{}, Writes: []string{}}
		p, ok, why := blueprint.Resolve(vs, e.Entry)
		if !ok {
			bd.Unresolved = why
		} else {
			bd.Version = p.Version
			for _, u := range blueprint.PipelineUses(p) {
				if u.Type != blueprint.DepStream {
					continue
				}
				if u.Read {
					bd.Reads = append(bd.Reads, u.Name)
				}
				if u.Write {
					bd.Writes = append(bd.Writes, u.Name)
				}
			}
		}
		m.Bindings = append(m.Bindings, bd)
	}
	return m, nil
}

// mappings collects the mapping of every deployment.
func mappings(ctx context.Context, s *Source) ([]Item, error) {
	deps, err := s.Repo.List(ctx, artifact.Deployment)
	if err != nil {
		return nil, err
	}
	items := make([]Item, 0, len(deps))
	for _, r := range deps {
		m, err := MappingOf(ctx, r.Doc, dataVersions(s.Data))
		if err != nil {
			return nil, err
		}
		d, err := docOf(m)
		if err != nil {
			return nil, err
		}
		items = append(items, Item{Name: m.Deployment, Doc: d})
	}
	return items, nil
}

// StreamDef is what a backup keeps of a persistent stream: its
// definition, not its records.
type StreamDef struct {
	Name           string  `json:"name"`
	Description    string  `json:"description"`
	RetentionHours float64 `json:"retention_hours"`
	MaxSizeMB      float64 `json:"max_size_mb"`
	MaxMessages    int64   `json:"max_messages"`
}

// streamDef is the definition of a stream as streams.Info describes it.
func streamDef(i streams.Info) StreamDef {
	return StreamDef{Name: i.Name, Description: i.Description, RetentionHours: i.RetentionHours, MaxSizeMB: i.MaxSizeMB, MaxMessages: i.MaxMessages}
}

// Config is the configuration that makes the stream: the size rounded
// up to the byte, so that the stream made describes itself with the same
// max_size_mb.
func (d StreamDef) Config() streams.Config {
	return streams.Config{Name: d.Name, Description: d.Description,
		MaxAge:   time.Duration(d.RetentionHours * float64(time.Hour)),
		MaxBytes: int64(math.Ceil(d.MaxSizeMB * (1 << 20))), MaxMsgs: d.MaxMessages}
}

// persistentStreams collects the definitions of the tenant's own
// persistent streams (the system streams exist in every tenant).
func persistentStreams(ctx context.Context, s *Source) ([]Item, error) {
	infos, err := streams.List(ctx, s.JS)
	if err != nil {
		return nil, err
	}
	var items []Item
	for _, i := range infos {
		if i.System {
			continue
		}
		d, err := docOf(streamDef(i))
		if err != nil {
			return nil, err
		}
		items = append(items, Item{Name: i.Name, Doc: d})
	}
	return items, nil
}

// docOf is a value as a document, its keys in its fields' order.
func docOf(v any) (*artifact.Doc, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return artifact.Parse(data)
}

// sortVersions sorts versions of a pipeline, oldest first.
func sortVersions(vs []api.Pipeline) {
	slices.SortStableFunc(vs, func(a, b api.Pipeline) int { return pipeline.CompareVersions(a.Version, b.Version) })
}
