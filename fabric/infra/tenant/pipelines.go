package tenant

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/lib/pipeline"
)

// pipelineKey is the KV key of one version of a pipeline: the name as a
// store key (which has no '.'), a '.', and the version.
func pipelineKey(name, version string) string { return store.Key(name) + "." + version }

// AddPipeline stores p as the next version of the day of its name,
// YYYY_MM_DD_N (UTC; N counts from 1), and returns the stored record:
// p with its version, saved_time, pipetype (Published unless given) and
// format (json unless given) set. Two adds at once never get the same
// version: each version is created only where none exists.
func (t *Data) AddPipeline(ctx context.Context, p api.Pipeline) (api.Pipeline, error) {
	if p.Name == "" {
		return p, errors.New("a pipeline needs a name")
	}
	if p.Pipetype == "" {
		p.Pipetype = api.PipetypePublished
	}
	pt, err := pipeline.Pipetype(p.Pipetype)
	if err != nil {
		return p, err
	}
	p.Pipetype = pt
	if p.Format == "" {
		p.Format = api.PipelineJSON
	}
	if p.Data.Name == "" {
		p.Data.Name = p.Name
	}
	if p.Data.Sequence == nil {
		p.Data.Sequence = []api.PipelineStep{}
	}
	for i, s := range p.Data.Sequence {
		if !pipeline.ValidTag(s.Tag) {
			return p, fmt.Errorf("pipeline %q: step %d: %q is not a bot tag (want @ns:bot, *ns:bot or #ns:bot)", p.Name, i+1, s.Tag)
		}
	}
	versions, err := t.pipelineVersions(ctx, p.Name)
	if err != nil {
		return p, err
	}
	now := time.Now()
	today := now.UTC().Format(pipeline.VersionDayFormat)
	n := 1
	for _, v := range versions {
		if day, vn, ok := pipeline.ParseVersion(v.Version); ok && day == today && vn >= n {
			n = vn + 1
		}
	}
	p.SavedTime = api.Timestamp(now)
	for tries := 0; ; tries++ {
		p.Version = pipeline.Version(now, n)
		st, err := t.Store(ctx)
		if err != nil {
			return p, err
		}
		err = st.Create(ctx, api.PipelinesBucket, pipelineKey(p.Name, p.Version), p)
		if !errors.Is(err, store.ErrExists) {
			return p, err
		}
		if tries == 1000 {
			return p, fmt.Errorf("pipeline %q: no free version left today after %s", p.Name, p.Version)
		}
		n++ // someone else took this one meanwhile
	}
}

// allPipelines returns every version of every pipeline, by name, then
// oldest version first.
func (t *Data) allPipelines(ctx context.Context) ([]api.Pipeline, error) {
	out, err := listOf[api.Pipeline](ctx, t, api.PipelinesBucket)
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b api.Pipeline) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return pipeline.CompareVersions(a.Version, b.Version)
	})
	return out, nil
}

// pipelineVersions returns every version of one pipeline, oldest first:
// the keys of that name's versions are listed (not every pipeline's
// records read), then each version is read.
func (t *Data) pipelineVersions(ctx context.Context, name string) ([]api.Pipeline, error) {
	s, err := t.Store(ctx)
	if err != nil {
		return nil, err
	}
	keys, err := s.KeysMatching(ctx, api.PipelinesBucket, store.Key(name)+".*")
	if err != nil {
		return nil, err
	}
	out := []api.Pipeline{}
	for _, k := range keys {
		var p api.Pipeline
		_, err := s.Get(ctx, api.PipelinesBucket, k, &p)
		if errors.Is(err, store.ErrNotFound) {
			continue // deleted meanwhile
		}
		if err != nil {
			return nil, err
		}
		if p.Name == name {
			out = append(out, p)
		}
	}
	slices.SortStableFunc(out, func(a, b api.Pipeline) int { return pipeline.CompareVersions(a.Version, b.Version) })
	return out, nil
}

// Pipelines returns the latest version of each pipeline, by name.
func (t *Data) Pipelines(ctx context.Context) ([]api.Pipeline, error) {
	all, err := t.allPipelines(ctx)
	if err != nil {
		return nil, err
	}
	out := []api.Pipeline{}
	for i, p := range all {
		if i+1 == len(all) || all[i+1].Name != p.Name {
			out = append(out, p)
		}
	}
	return out, nil
}

// ErrNoPipeline begins the error of a pipeline that does not exist.
var ErrNoPipeline = errors.New("no pipeline named")

// PipelineVersions returns every version of a pipeline, oldest first
// (ErrNoPipeline when there is none).
func (t *Data) PipelineVersions(ctx context.Context, name string) ([]api.Pipeline, error) {
	out, err := t.pipelineVersions(ctx, name)
	if err == nil && len(out) == 0 {
		return nil, fmt.Errorf("%w %q", ErrNoPipeline, name)
	}
	return out, err
}

// Pipeline returns a version of a pipeline; version "" is the latest.
func (t *Data) Pipeline(ctx context.Context, name, version string) (api.Pipeline, error) {
	p, _, err := t.pipelineRecord(ctx, name, version)
	return p, err
}

// pipelineRecord returns a version of a pipeline and its revision.
func (t *Data) pipelineRecord(ctx context.Context, name, version string) (api.Pipeline, uint64, error) {
	var p api.Pipeline
	if version == "" {
		versions, err := t.PipelineVersions(ctx, name)
		if err != nil {
			return p, 0, err
		}
		version = versions[len(versions)-1].Version
	}
	s, err := t.Store(ctx)
	if err != nil {
		return p, 0, err
	}
	rev, err := uint64(0), store.ErrNotFound
	if _, _, ok := pipeline.ParseVersion(version); ok {
		rev, err = s.Get(ctx, api.PipelinesBucket, pipelineKey(name, version), &p)
	}
	if errors.Is(err, store.ErrNotFound) {
		if _, err := t.PipelineVersions(ctx, name); err != nil {
			return p, 0, err
		}
		return p, 0, fmt.Errorf("pipeline %q has no version %q", name, version)
	}
	return p, rev, err
}

// DeletePipeline deletes one version of a pipeline.
func (t *Data) DeletePipeline(ctx context.Context, name, version string) error {
	if version == "" {
		return fmt.Errorf("pipeline %q: give the version to delete", name)
	}
	if _, _, err := t.pipelineRecord(ctx, name, version); err != nil {
		return err
	}
	s, _ := t.Store(ctx)
	return s.Delete(ctx, api.PipelinesBucket, pipelineKey(name, version))
}

// ConvertPipelinesToJSON keeps every version of every pipeline of a
// pipetype (Published or Draft) that is kept as YAML as JSON from now on,
// and returns them, by name and version. Those already JSON, or written in
// the text form, stay as they are.
func (t *Data) ConvertPipelinesToJSON(ctx context.Context, pipetype string) ([]api.Pipeline, error) {
	pt, err := pipeline.Pipetype(pipetype)
	if err != nil {
		return nil, err
	}
	all, err := t.allPipelines(ctx)
	if err != nil {
		return nil, err
	}
	s, _ := t.Store(ctx)
	out := []api.Pipeline{}
	for _, p := range all {
		if p.Pipetype != pt || p.Format != api.PipelineYAML {
			continue
		}
		key := pipelineKey(p.Name, p.Version)
		var cur api.Pipeline
		rev, err := s.Get(ctx, api.PipelinesBucket, key, &cur)
		if errors.Is(err, store.ErrNotFound) {
			continue // deleted meanwhile
		}
		if err != nil {
			return out, err
		}
		p = cur
		p.Format = api.PipelineJSON
		if err := s.Put(ctx, api.PipelinesBucket, key, p, rev); err != nil {
			return out, fmt.Errorf("pipeline %q version %s: %v", p.Name, p.Version, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// PublishPipeline makes a draft version of a pipeline published: its
// pipetype becomes Published (deployments' version "*" and
// published-run then take it when it is the latest published one).
// A version that is published already is refused.
func (t *Data) PublishPipeline(ctx context.Context, name, version string) (api.Pipeline, error) {
	if version == "" {
		return api.Pipeline{}, fmt.Errorf("pipeline %q: give the version to publish", name)
	}
	p, rev, err := t.pipelineRecord(ctx, name, version)
	if err != nil {
		return p, err
	}
	if p.Pipetype == api.PipetypePublished {
		return p, fmt.Errorf("pipeline %q version %s is published already", name, version)
	}
	p.Pipetype = api.PipetypePublished
	s, _ := t.Store(ctx)
	if err := s.Put(ctx, api.PipelinesBucket, pipelineKey(name, version), p, rev); err != nil {
		return p, fmt.Errorf("pipeline %q version %s was changed meanwhile; try again", name, version)
	}
	return p, nil
}

// LatestPublished returns the latest published version of a pipeline.
func (t *Data) LatestPublished(ctx context.Context, name string) (api.Pipeline, error) {
	versions, err := t.PipelineVersions(ctx, name)
	if err != nil {
		return api.Pipeline{}, err
	}
	for i := len(versions) - 1; i >= 0; i-- {
		if versions[i].Pipetype == "" || versions[i].Pipetype == api.PipetypePublished {
			return versions[i], nil
		}
	}
	return api.Pipeline{}, fmt.Errorf("pipeline %q has no published version ('client pipeline publish' publishes a draft)", name)
}

// Pipeline restore outcomes (RestorePipeline).
const (
	RestoreAdded     = "added"
	RestoreUnchanged = "unchanged"
)

// RestorePipeline stores p at its own version (a backup's), where
// AddPipeline would give it the next one: added when the version is new,
// unchanged when the same content is stored there already (saved_time
// aside). A version stored with other content is refused: a version
// never changes. With dryRun nothing is written.
func (t *Data) RestorePipeline(ctx context.Context, p api.Pipeline, dryRun bool) (string, error) {
	if _, _, ok := pipeline.ParseVersion(p.Version); !ok {
		return "", fmt.Errorf("pipeline %q: %q is not a version (YYYY_MM_DD_N)", p.Name, p.Version)
	}
	if p.Pipetype == "" {
		p.Pipetype = api.PipetypePublished
	}
	pt, err := pipeline.Pipetype(p.Pipetype)
	if err != nil {
		return "", err
	}
	p.Pipetype = pt
	if p.Format == "" {
		p.Format = api.PipelineJSON
	}
	for i, s := range p.Data.Sequence {
		if !pipeline.ValidTag(s.Tag) {
			return "", fmt.Errorf("pipeline %q: step %d: %q is not a bot tag (want @ns:bot, *ns:bot or #ns:bot)", p.Name, i+1, s.Tag)
		}
	}
	s, err := t.Store(ctx)
	if err != nil {
		return "", err
	}
	var cur api.Pipeline
	_, err = s.Get(ctx, api.PipelinesBucket, pipelineKey(p.Name, p.Version), &cur)
	switch {
	case err == nil:
		cur.SavedTime = p.SavedTime
		if reflect.DeepEqual(normalPipeline(cur), normalPipeline(p)) {
			return RestoreUnchanged, nil
		}
		return "", fmt.Errorf("pipeline %q version %s exists with other content (a version never changes: add it as a new version)", p.Name, p.Version)
	case !errors.Is(err, store.ErrNotFound):
		return "", err
	case dryRun:
		return RestoreAdded, nil
	}
	if p.SavedTime == "" {
		p.SavedTime = api.Timestamp(time.Now())
	}
	if err := s.Create(ctx, api.PipelinesBucket, pipelineKey(p.Name, p.Version), p); err != nil {
		return "", fmt.Errorf("pipeline %q version %s: %v", p.Name, p.Version, err)
	}
	return RestoreAdded, nil
}

// normalPipeline is p as a comparison sees it: empty lists and maps as
// none.
func normalPipeline(p api.Pipeline) api.Pipeline {
	if len(p.Sources) == 0 {
		p.Sources = nil
	}
	if len(p.Artifacts) == 0 {
		p.Artifacts = nil
	}
	if len(p.Data.Sequence) == 0 {
		p.Data.Sequence = nil
	}
	return p
}

// SameAsLatest reports whether the latest version of p's pipeline holds
// p (its version, saved_time and format aside, pipetype Published when
// p gives none): a setup that adds p again as a new version would add
// nothing new.
func (t *Data) SameAsLatest(ctx context.Context, p api.Pipeline) (bool, error) {
	versions, err := t.pipelineVersions(ctx, p.Name)
	if err != nil || len(versions) == 0 {
		return false, err
	}
	cur := versions[len(versions)-1]
	if p.Pipetype == "" {
		p.Pipetype = api.PipetypePublished
	}
	if p.Data.Name == "" {
		p.Data.Name = p.Name
	}
	p.Version, p.SavedTime, p.Format = cur.Version, cur.SavedTime, cur.Format
	return reflect.DeepEqual(normalPipeline(cur), normalPipeline(p)), nil
}
