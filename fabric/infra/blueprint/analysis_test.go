package blueprint

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/fabricops/fabric/fabric/api"
)

// fakeLookup is an in-memory fabric for the analyses: pipelines by name
// (oldest version first), the sites of live workers, the streams and
// datasets that exist; errs makes a method fail; calls counts them.
type fakeLookup struct {
	pipelines map[string][]api.Pipeline
	sites     []string
	streams   map[string]bool
	datasets  map[string]bool
	errs      map[string]error
	calls     map[string]int
}

func (f *fakeLookup) count(method, name string) error {
	if f.calls == nil {
		f.calls = map[string]int{}
	}
	f.calls[method+" "+name]++
	return f.errs[method]
}

func (f *fakeLookup) PipelineVersions(ctx context.Context, name string) ([]api.Pipeline, error) {
	if err := f.count("PipelineVersions", name); err != nil {
		return nil, err
	}
	return f.pipelines[name], nil
}

func (f *fakeLookup) WorkerSites(ctx context.Context) ([]string, error) {
	if err := f.count("WorkerSites", ""); err != nil {
		return nil, err
	}
	return f.sites, nil
}

func (f *fakeLookup) StreamExists(ctx context.Context, name string) (bool, error) {
	if err := f.count("StreamExists", name); err != nil {
		return false, err
	}
	return f.streams[name], nil
}

func (f *fakeLookup) DatasetExists(ctx context.Context, name string) (bool, error) {
	if err := f.count("DatasetExists", name); err != nil {
		return false, err
	}
	return f.datasets[name], nil
}

var _ Lookup = (*fakeLookup)(nil)

// published and draft are pipeline versions of each type.
func published(name, version string) api.Pipeline {
	return api.Pipeline{Name: name, Version: version, Pipetype: api.PipetypePublished}
}

func draft(name, version string) api.Pipeline {
	return api.Pipeline{Name: name, Version: version, Pipetype: api.PipetypeDraft}
}

// TestResolve checks which version of its pipeline an entry runs: the
// latest published for "*" or "", the named one if published, drafts
// never.
func TestResolve(t *testing.T) {
	versions := []api.Pipeline{
		published("p", "2024_01_01_1"),
		{Name: "p", Version: "2024_02_01_1"}, // no type: published
		published("p", "2024_03_01_1"),
		draft("p", "2024_04_01_1"),
		draft("p", "2024_04_01_2"),
	}
	for _, tc := range []struct {
		name     string
		versions []api.Pipeline
		version  Text
		want     string // the version resolved, or "" with why
		why      string
	}{
		{"latest published for *", versions, "*", "2024_03_01_1", ""},
		{"latest published for empty", versions, "", "2024_03_01_1", ""},
		{"named published", versions, "2024_01_01_1", "2024_01_01_1", ""},
		{"named without type", versions, "2024_02_01_1", "2024_02_01_1", ""},
		{"named draft", versions, "2024_04_01_1", "", `pipeline "p" has no published version 2024_04_01_1`},
		{"named missing", versions, "2024_05_01_1", "", `pipeline "p" has no published version 2024_05_01_1`},
		{"drafts only", []api.Pipeline{draft("p", "2024_01_01_1")}, "*", "", `pipeline "p" has no published version`},
		{"no versions", nil, "*", "", `no pipeline named "p"`},
		{"no versions, named", []api.Pipeline{}, "2024_01_01_1", "", `no pipeline named "p"`},
		{"unknown type skipped", []api.Pipeline{published("p", "2024_01_01_1"), {Name: "p", Version: "2024_02_01_1", Pipetype: "Archived"}}, "*", "2024_01_01_1", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, ok, why := Resolve(tc.versions, Entry{Name: "p", Version: tc.version})
			if ok != (tc.want != "") || p.Version != tc.want || why != tc.why {
				t.Errorf("Resolve(%q) = %q, %v, %q; want %q, %v, %q", tc.version, p.Version, ok, why, tc.want, tc.want != "", tc.why)
			}
			if !ok && !reflect.DeepEqual(p, api.Pipeline{}) {
				t.Errorf("Resolve(%q): pipeline %+v with ok false", tc.version, p)
			}
		})
	}
}

// scenario is a fabric and a blueprint that uses most of it: an entry
// resolved with sources, streams and datasets, one resolved on a named
// version, one whose version is missing, one whose pipeline is missing.
func scenario() (*fakeLookup, *Blueprint) {
	ingest2 := published("ingest", "2024_02_01_1")
	ingest2.Sources = map[string]api.PipelineSource{
		"src1": {Name: "events", Type: "stream"},
		"db":   {Type: "dataset"}, // no name: the key is the name
		"snmp": {Name: "snmp-x", Type: "snmp"},
	}
	ingest2.Artifacts = []api.PipelineArtifact{{ArtifactType: "Dataset", ArtifactName: "lookup"}}
	ingest2.Data.Sequence = []api.PipelineStep{
		{Tag: "@dm:read-stream", Query: "name = 'raw'"},
		{Tag: "@dm:save", Query: "name = 'out'"},
		{Tag: "@dm:save", Query: "name = 'temp-x'"},
		{Tag: "@dm:write-stream", Query: "name = 'alerts'"},
	}
	l := &fakeLookup{
		pipelines: map[string][]api.Pipeline{
			"ingest": {published("ingest", "2024_01_01_1"), ingest2, draft("ingest", "2024_03_01_1")},
			"report": {{Name: "report", Version: "2024_01_05_1"}},
		},
		sites:    []string{"local", "local-2", "edge"},
		streams:  map[string]bool{"raw": true},
		datasets: map[string]bool{"db": true},
	}
	b := &Blueprint{
		ID: "d1", Name: "Dep One", Description: "the first",
		Service: []Entry{
			{Name: "ingest", Version: "*", Site: "loc.*"},
			{Name: "ingest", Label: "ingest-edge", Version: "2024_01_01_1", Site: "EDGE", SiteType: "name"},
		},
		Scheduled: []Entry{{Name: "report", Label: "r", Version: "2024_01_05_2", Site: "remote", Cron: "0 2 * * *"}},
		Action:    []Entry{{Name: "fix"}},
	}
	return l, b
}

// TestResolveAll checks that every entry is resolved, in Entries order,
// each pipeline's versions read once, and a lookup error returned.
func TestResolveAll(t *testing.T) {
	l, b := scenario()
	rs, err := ResolveAll(context.Background(), l, b)
	if err != nil {
		t.Fatalf("ResolveAll: %v", err)
	}
	type row struct {
		kind, key, version string
		ok                 bool
		why                string
	}
	var got []row
	for _, r := range rs {
		got = append(got, row{r.Kind, r.Key(), r.Pipeline.Version, r.OK, r.Why})
	}
	want := []row{
		{KindService, "ingest", "2024_02_01_1", true, ""},
		{KindService, "ingest-edge", "2024_01_01_1", true, ""},
		{KindScheduled, "r", "", false, `pipeline "report" has no published version 2024_01_05_2`},
		{KindAction, "fix", "", false, `no pipeline named "fix"`},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ResolveAll =\n%+v\nwant\n%+v", got, want)
	}
	if rs[2].Cron != "0 2 * * *" {
		t.Errorf("ResolveAll lost the entry: %+v", rs[2].Entry)
	}
	for _, name := range []string{"ingest", "report", "fix"} {
		if n := l.calls["PipelineVersions "+name]; n != 1 {
			t.Errorf("PipelineVersions(%s) called %d times, want 1", name, n)
		}
	}

	rs, err = ResolveAll(context.Background(), l, &Blueprint{ID: "empty"})
	if err != nil || len(rs) != 0 {
		t.Errorf("ResolveAll(empty) = %v, %v; want nothing", rs, err)
	}

	boom := errors.New("boom")
	l.errs = map[string]error{"PipelineVersions": boom}
	if rs, err := ResolveAll(context.Background(), l, b); !errors.Is(err, boom) || rs != nil {
		t.Errorf("ResolveAll with a failing lookup = %v, %v; want nil, boom", rs, err)
	}
}

// TestPipelineUses checks what a pipeline reads and writes: declared
// artifacts by access, the artifacts its steps name, temp- datasets left
// out, merged and sorted.
func TestPipelineUses(t *testing.T) {
	p := api.Pipeline{
		Artifacts: []api.PipelineArtifact{
			{ArtifactType: "Dataset", ArtifactName: "lookup"},                // no access: read
			{ArtifactType: "STREAM", ArtifactName: "out-s", Access: "Write"}, // write only
			{ArtifactType: "dataset", ArtifactName: "both", Access: "read-write"},
			{ArtifactType: "object", ArtifactName: "blob", Access: "READ"},
			{ArtifactType: "dataset", ArtifactName: "", Access: "read"},        // no name: left out
			{ArtifactType: "dataset", ArtifactName: "temp-a", Access: "write"}, // temp-: left out
			{ArtifactType: "stream", ArtifactName: "temp-s", Access: "write"},  // a stream named temp- is kept
		},
		Data: api.PipelineData{Sequence: []api.PipelineStep{
			{Tag: "@dm:recall", Query: "name = 'lookup'"}, // merged with the artifact
			{Tag: "@dm:savedlist", Query: "name = 'list'"},
			{Tag: "@dm:enrich", Query: "dict = 'dict' & src_key_cols = 'a'"},
			{Tag: "@c:data-loop", Query: "dataset = 'loop'"},
			{Tag: "@dm:save", Query: "name = 'both'"},
			{Tag: "@dm:delete-dataset", Query: "name = 'gone'"},
			{Tag: "@dm:read-stream", Query: "name = 'in-s'"},
			{Tag: "@dm:write-stream", Query: "name = 'in-s'"}, // read and written
			{Tag: api.BotLogarchiveReplay, Query: "stream = 'replayed' & repo = 'r'"},
			{Tag: "@dm:save", Query: "name = 'temp-out'"},          // temp-: left out
			{Tag: "@dm:save", Query: "name = 'bad"},                // does not parse: skipped
			{Tag: "@dm:save", Query: "other = 'x'"},                // no name: skipped
			{Tag: "@dm:filter", Query: "name = 'not-an-artifact'"}, // not a bot that uses artifacts
			{Tag: "*dm:save", Query: "name = 'other-tag'"},         // another tag
		}},
	}
	want := []Dependency{
		{DepDataset, "both", true, true},
		{DepDataset, "dict", true, false},
		{DepDataset, "gone", false, true},
		{DepDataset, "list", true, false},
		{DepDataset, "lookup", true, false},
		{DepDataset, "loop", true, false},
		{DepObject, "blob", true, false},
		{DepStream, "in-s", true, true},
		{DepStream, "out-s", false, true},
		{DepStream, "replayed", false, true},
		{DepStream, "temp-s", false, true},
	}
	if got := PipelineUses(p); !reflect.DeepEqual(got, want) {
		t.Errorf("PipelineUses =\n%+v\nwant\n%+v", got, want)
	}
	if got := PipelineUses(api.Pipeline{}); got == nil || len(got) != 0 {
		t.Errorf("PipelineUses(empty) = %#v, want an empty list", got)
	}
}

// TestDependencies checks a blueprint's dependencies: its pipelines
// (read, resolved or not), what the resolved ones use, and the system
// streams it writes; none for no entries.
func TestDependencies(t *testing.T) {
	l, b := scenario()
	rs, err := ResolveAll(context.Background(), l, b)
	if err != nil {
		t.Fatal(err)
	}
	want := []Dependency{
		{DepDataset, "lookup", true, false},
		{DepDataset, "out", false, true},
		{DepPipeline, "fix", true, false},
		{DepPipeline, "ingest", true, false},
		{DepPipeline, "report", true, false},
		{DepStream, "alerts", false, true},
		{DepStream, api.StreamDeploymentUpdates, false, true},
		{DepStream, api.StreamTraceSummaries, false, true},
		{DepStream, "raw", true, false},
	}
	if got := Dependencies(rs); !reflect.DeepEqual(got, want) {
		t.Errorf("Dependencies =\n%+v\nwant\n%+v", got, want)
	}
	if got := Dependencies(nil); len(got) != 0 {
		t.Errorf("Dependencies(nil) = %+v, want none", got)
	}

	// a pipeline that reads a system stream: read and written
	p := published("watch", "2024_01_01_1")
	p.Data.Sequence = []api.PipelineStep{{Tag: "@dm:read-stream", Query: "name = '" + api.StreamTraceSummaries + "'"}}
	got := Dependencies([]Resolved{{Listed: Listed{KindService, Entry{Name: "watch"}}, Pipeline: p, OK: true}})
	want = []Dependency{
		{DepPipeline, "watch", true, false},
		{DepStream, api.StreamDeploymentUpdates, false, true},
		{DepStream, api.StreamTraceSummaries, true, true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Dependencies(watch) =\n%+v\nwant\n%+v", got, want)
	}
}

// TestAudit checks the audit of the scenario finding by finding: INFO for
// what is there, ERROR for a missing published version, a missing
// pipeline, a site no worker matches, a missing source and stream,
// WARNING for a source it cannot check.
func TestAudit(t *testing.T) {
	l, b := scenario()
	rs, err := ResolveAll(context.Background(), l, b)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := Audit(context.Background(), l, b, rs)
	if err != nil {
		t.Fatalf("Audit: %v", err)
	}
	want := []Finding{
		{VerifyPipeline, Info, "service pipeline ingest (label ingest): version 2024_02_01_1 is published"},
		{VerifySite, Info, `service pipeline ingest (label ingest): 2 active workers match site "loc.*"`},
		{VerifySource, Info, "source db (dataset) exists"},
		{VerifySource, Warning, "source snmp-x of type snmp: not checked here (check-credentials checks it from a worker)"},
		{VerifySource, Error, "source events (stream) does not exist"},
		{VerifyPipeline, Info, "service pipeline ingest (label ingest-edge): version 2024_01_01_1 is published"},
		{VerifySite, Info, `service pipeline ingest (label ingest-edge): 1 active worker matches site "EDGE"`},
		{VerifyPipeline, Error, `scheduled pipeline report (label r): pipeline "report" has no published version 2024_01_05_2`},
		{VerifySite, Error, `scheduled pipeline report (label r): no site or active worker matches site "remote"`},
		{VerifyPipeline, Error, `action pipeline fix (label fix): no pipeline named "fix"`},
		{VerifySite, Info, "action pipeline fix (label fix): 3 active workers match any site"},
		{VerifyStream, Error, "stream alerts (written) does not exist"},
		{VerifyStream, Info, "stream raw (read) exists"},
	}
	if !reflect.DeepEqual(fs, want) {
		t.Errorf("Audit =\n%s\nwant\n%s", findings(fs), findings(want))
	}
	if e, w := Count(fs); e != 5 || w != 1 {
		t.Errorf("Count = %d errors, %d warnings; want 5, 1", e, w)
	}
}

func findings(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.Type + " | " + f.Severity + " | " + f.Message + "\n")
	}
	return b.String()
}

// TestAuditSites checks the site findings alone: no worker at all, a
// site matched by name, "*", and a bad site refused as an ERROR.
func TestAuditSites(t *testing.T) {
	p := published("p", "2024_01_01_1")
	for _, tc := range []struct {
		name  string
		sites []string
		entry Entry
		want  Finding
	}{
		{"no worker", nil, Entry{Name: "p"},
			Finding{VerifySite, Error, "service pipeline p (label p): no site or active worker matches any site"}},
		{"star", []string{"a", "b"}, Entry{Name: "p", Site: "*"},
			Finding{VerifySite, Info, `service pipeline p (label p): 2 active workers match site "*"`}},
		{"name, another case", []string{"Edge", "edge", "edge-2"}, Entry{Name: "p", Site: "EDGE", SiteType: "name"},
			Finding{VerifySite, Info, `service pipeline p (label p): 2 active workers match site "EDGE"`}},
		{"regex not a prefix", []string{"local"}, Entry{Name: "p", Site: "loc"},
			Finding{VerifySite, Error, `service pipeline p (label p): no site or active worker matches site "loc"`}},
		{"two workers on a site", []string{"local", "local"}, Entry{Name: "p", Site: "local"},
			Finding{VerifySite, Info, `service pipeline p (label p): 2 active workers match site "local"`}},
		{"bad site", []string{"local"}, Entry{Name: "p", Site: "x", SiteType: "glob"},
			Finding{VerifySite, Error, `service pipeline p (label p): site_type is regex or name, not "glob"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := &fakeLookup{sites: tc.sites}
			rs := []Resolved{{Listed: Listed{KindService, tc.entry}, Pipeline: p, OK: true}}
			fs, err := Audit(context.Background(), l, &Blueprint{ID: "d"}, rs)
			if err != nil {
				t.Fatalf("Audit: %v", err)
			}
			if len(fs) != 2 || fs[1] != tc.want {
				t.Errorf("Audit =\n%s\nwant the site finding\n%s", findings(fs), findings([]Finding{tc.want}))
			}
		})
	}
}

// TestAuditSourcesOnce checks that a source two entries share is checked
// once, that the source type is read without case, and that a stream
// both read and written is reported as read.
func TestAuditSourcesOnce(t *testing.T) {
	p := published("p", "2024_01_01_1")
	p.Sources = map[string]api.PipelineSource{"s": {Name: "in", Type: "Stream"}, "d": {Name: "ds", Type: "DATASET"}}
	p.Data.Sequence = []api.PipelineStep{
		{Tag: "@dm:write-stream", Query: "name = 'io'"},
		{Tag: "@dm:read-stream", Query: "name = 'io'"},
	}
	l := &fakeLookup{sites: []string{"x"}, streams: map[string]bool{"in": true, "io": true}}
	rs := []Resolved{
		{Listed: Listed{KindService, Entry{Name: "p"}}, Pipeline: p, OK: true},
		{Listed: Listed{KindService, Entry{Name: "p", Label: "p2"}}, Pipeline: p, OK: true},
	}
	fs, err := Audit(context.Background(), l, &Blueprint{ID: "d"}, rs)
	if err != nil {
		t.Fatalf("Audit: %v", err)
	}
	want := []Finding{
		{VerifyPipeline, Info, "service pipeline p (label p): version 2024_01_01_1 is published"},
		{VerifySite, Info, "service pipeline p (label p): 1 active worker matches any site"},
		{VerifySource, Error, "source ds (DATASET) does not exist"},
		{VerifySource, Info, "source in (Stream) exists"},
		{VerifyPipeline, Info, "service pipeline p (label p2): version 2024_01_01_1 is published"},
		{VerifySite, Info, "service pipeline p (label p2): 1 active worker matches any site"},
		{VerifyStream, Info, "stream io (read) exists"},
	}
	if !reflect.DeepEqual(fs, want) {
		t.Errorf("Audit =\n%s\nwant\n%s", findings(fs), findings(want))
	}
	if n := l.calls["DatasetExists ds"]; n != 1 {
		t.Errorf("DatasetExists(ds) called %d times, want 1", n)
	}
	if n := l.calls["StreamExists io"]; n != 1 {
		t.Errorf("StreamExists(io) called %d times, want 1", n)
	}
}

// TestAuditErrors checks that a failing lookup fails the audit.
func TestAuditErrors(t *testing.T) {
	for _, method := range []string{"WorkerSites", "StreamExists", "DatasetExists"} {
		l, b := scenario()
		rs, err := ResolveAll(context.Background(), l, b)
		if err != nil {
			t.Fatal(err)
		}
		boom := errors.New(method + " failed")
		l.errs = map[string]error{method: boom}
		if fs, err := Audit(context.Background(), l, b, rs); !errors.Is(err, boom) || fs != nil {
			t.Errorf("Audit with %s failing = %v, %v; want nil, the error", method, fs, err)
		}
	}
	// nothing to audit: no findings, no error
	fs, err := Audit(context.Background(), &fakeLookup{}, &Blueprint{ID: "d"}, nil)
	if err != nil || len(fs) != 0 {
		t.Errorf("Audit(nothing) = %v, %v", fs, err)
	}
}

// TestCount checks the count of errors and warnings among findings.
func TestCount(t *testing.T) {
	fs := []Finding{{Severity: Error}, {Severity: Info}, {Severity: Warning}, {Severity: Error}, {Severity: "OTHER"}}
	if e, w := Count(fs); e != 2 || w != 1 {
		t.Errorf("Count = %d, %d; want 2, 1", e, w)
	}
	if e, w := Count(nil); e != 0 || w != 0 {
		t.Errorf("Count(nil) = %d, %d", e, w)
	}
}

// TestBuildMap checks the scenario's map node by node and arrow by arrow:
// the deployment, its pipelines by kind, what the resolved ones use, the
// system streams hidden, a partial status naming what is missing.
func TestBuildMap(t *testing.T) {
	l, b := scenario()
	rs, err := ResolveAll(context.Background(), l, b)
	if err != nil {
		t.Fatal(err)
	}
	m := BuildMap(b, rs)
	const (
		root   = "deployment:d1"
		ingest = "pipeline:ingest"
		upd    = "stream:" + api.StreamDeploymentUpdates
		trace  = "stream:" + api.StreamTraceSummaries
	)
	want := Map{
		Status: "partial",
		Reason: `2 pipelines not drawn whole: pipeline "report" has no published version 2024_01_05_2; no pipeline named "fix"`,
		Data: MapData{Stack: Stack{
			Name: "Dep One", Description: "the first",
			Nodes: []Node{
				{ID: root, Type: "deployment", Layer: 0, IconURL: "/icons/deployment.svg", Label: "Dep One"},
				{ID: ingest, Type: DepPipeline, Layer: 1, IconURL: "/icons/pipeline.svg", Label: "ingest"},
				{ID: "dataset:lookup", Type: DepDataset, Layer: 2, IconURL: "/icons/dataset.svg", Label: "lookup"},
				{ID: "dataset:out", Type: DepDataset, Layer: 2, IconURL: "/icons/dataset.svg", Label: "out"},
				{ID: "stream:alerts", Type: DepStream, Layer: 2, IconURL: "/icons/stream.svg", Label: "alerts"},
				{ID: "stream:raw", Type: DepStream, Layer: 2, IconURL: "/icons/stream.svg", Label: "raw"},
				{ID: upd, Type: DepStream, Layer: 2, IconURL: "/icons/stream.svg", Label: api.StreamDeploymentUpdates, DefaultVisibility: "hidden"},
				{ID: trace, Type: DepStream, Layer: 2, IconURL: "/icons/stream.svg", Label: api.StreamTraceSummaries, DefaultVisibility: "hidden"},
				{ID: "pipeline:report", Type: DepPipeline, Layer: 1, IconURL: "/icons/pipeline.svg", Label: "report"},
				{ID: "pipeline:fix", Type: DepPipeline, Layer: 1, IconURL: "/icons/pipeline.svg", Label: "fix"},
			},
			Relationships: []Relationship{
				{Left: root, Right: ingest, Type: KindService, Description: "runs ingest (label ingest)"},
				{Left: "dataset:lookup", Right: ingest, Type: "read", Description: "ingest reads lookup"},
				{Left: ingest, Right: "dataset:out", Type: "write", Description: "ingest writes out"},
				{Left: ingest, Right: "stream:alerts", Type: "write", Description: "ingest writes alerts"},
				{Left: "stream:raw", Right: ingest, Type: "read", Description: "ingest reads raw"},
				{Left: ingest, Right: upd, Type: "write", Description: "ingest writes " + api.StreamDeploymentUpdates},
				{Left: ingest, Right: trace, Type: "write", Description: "ingest writes " + api.StreamTraceSummaries},
				// the second entry of ingest: its own arrow from the
				// deployment, the same arrows to the system streams not
				// drawn again
				{Left: root, Right: ingest, Type: KindService, Description: "runs ingest (label ingest-edge)"},
				{Left: root, Right: "pipeline:report", Type: KindScheduled, Description: "runs report (label r)"},
				{Left: root, Right: "pipeline:fix", Type: KindAction, Description: "runs fix (label fix)"},
			},
		}},
	}
	if !reflect.DeepEqual(m, want) {
		gotJSON, _ := json.MarshalIndent(m, "", "  ")
		wantJSON, _ := json.MarshalIndent(want, "", "  ")
		t.Errorf("BuildMap =\n%s\nwant\n%s", gotJSON, wantJSON)
	}
}

// TestBuildMapWhole checks a map with every pipeline resolved (status
// ok, no reason), one with a single missing pipeline, and an empty
// blueprint's map as JSON (empty lists, not null).
func TestBuildMapWhole(t *testing.T) {
	b := &Blueprint{ID: "d", Name: "D", Comment: "from the comment"}
	rs := []Resolved{{Listed: Listed{KindService, Entry{Name: "p"}}, Pipeline: published("p", "2024_01_01_1"), OK: true}}
	m := BuildMap(b, rs)
	if m.Status != "ok" || m.Reason != "" {
		t.Errorf("BuildMap: status %q, reason %q; want ok and none", m.Status, m.Reason)
	}
	if m.Data.Stack.Description != "from the comment" {
		t.Errorf("BuildMap: description %q", m.Data.Stack.Description)
	}
	if n := len(m.Data.Stack.Nodes); n != 4 { // deployment, p, two system streams
		t.Errorf("BuildMap: %d nodes, want 4", n)
	}

	rs = []Resolved{{Listed: Listed{KindAction, Entry{Name: "q"}}, Why: `no pipeline named "q"`}}
	m = BuildMap(b, rs)
	if m.Status != "partial" || m.Reason != `1 pipeline not drawn whole: no pipeline named "q"` {
		t.Errorf("BuildMap: status %q, reason %q", m.Status, m.Reason)
	}

	out, err := json.Marshal(BuildMap(&Blueprint{ID: "e", Name: "E"}, nil))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"status":"ok","reason":"","data":{"stack":{"name":"E","description":"","nodes":[{"node_id":"deployment:e","node_type":"deployment","layer":0,"iconURL":"/icons/deployment.svg","node_label":"E"}],"relationships":[]}}}`
	if string(out) != want {
		t.Errorf("BuildMap(empty) =\n%s\nwant\n%s", out, want)
	}
}
