package pack

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"reflect"
	"sort"
	"testing"
)

// compareSides are a pack and what is deployed: one of each change.
func compareSides() (Side, Side) {
	left := Side{PackName: "netops", PackVersion: "1.2.0", Items: []Item{
		{Type: TypeDashboard, Name: "overview", File: "dashboards/overview.yaml", Checksum: "sha256:aa", Text: []byte("name: overview\ntitle: <script>alert(1)</script>\nrows: 2\n")},
		{Type: TypePipeline, Name: "hosts", File: "pipelines/hosts.pipeline", Version: "2024_05_01_1", Checksum: "sha256:11"},
		{Type: TypeCredential, Name: "snmp", File: "credentials/snmp.yaml", Checksum: "sha256:c1"},
		{Type: TypePipeline, Name: "alpha", File: "pipelines/alpha.pipeline", Version: "2024_05_01_1", Checksum: "sha256:22"},
		{Type: TypeBlueprint, Name: "web", File: "blueprints/web.yaml", Checksum: "sha256:bb"},
	}}
	right := Side{PackName: "deployed", Items: []Item{
		{Type: TypeDashboard, Name: "overview", Checksum: "sha256:ab", Text: []byte("name: overview\ntitle: Overview\nrows: 2\nextra: x\n")},
		{Type: TypePipeline, Name: "hosts", Version: "2024_04_01_3", Checksum: "sha256:11"},
		{Type: TypeCredential, Name: "snmp", Checksum: "sha256:c2"},
		{Type: TypeDashboard, Name: "legacy", Checksum: "sha256:dd"},
	}}
	return left, right
}

func TestCompare(t *testing.T) {
	left, right := compareSides()
	s := Summary{Timestamp: "2025-01-01T00:00:00Z", CompareWith: "deployed", DeploymentType: "customer", LeftPackName: "ignored",
		CommonDeployVars: map[string]string{"region": "eu-west", "api_token": "*****"}, ContextVars: map[string]string{"tenant": "acme"}}
	r := Compare(left, right, s)
	type short struct{ typ, name, change, file, vl, vr, pl, pr string }
	var got []short
	for _, row := range r.Rows {
		got = append(got, short{row.ArtifactType, row.ArtifactName, row.ChangeType, row.DefinitionFileName, row.ArtifactVersionLeft, row.ArtifactVersionRight, row.PackNameLeft + row.PackVersionLeft, row.PackNameRight + row.PackVersionRight})
	}
	want := []short{
		{TypeCredential, "snmp", ChangeChanged, "credentials/snmp.yaml", "", "", "netops1.2.0", "deployed"},
		{TypePipeline, "alpha", ChangeOnlyInLeft, "pipelines/alpha.pipeline", "2024_05_01_1", "", "netops1.2.0", ""},
		{TypePipeline, "hosts", ChangeUnchanged, "pipelines/hosts.pipeline", "2024_05_01_1", "2024_04_01_3", "netops1.2.0", "deployed"},
		{TypeBlueprint, "web", ChangeOnlyInLeft, "blueprints/web.yaml", "", "", "netops1.2.0", ""},
		{TypeDashboard, "legacy", ChangeOnlyInRight, "", "", "", "", "deployed"},
		{TypeDashboard, "overview", ChangeChanged, "dashboards/overview.yaml", "", "", "netops1.2.0", "deployed"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows\n%v\nwant\n%v", got, want)
	}
	wantCounts := map[string]Count{
		ChangeOnlyInLeft:  {2, map[string]int{TypePipeline: 1, TypeBlueprint: 1}},
		ChangeChanged:     {2, map[string]int{TypeCredential: 1, TypeDashboard: 1}},
		ChangeUnchanged:   {1, map[string]int{TypePipeline: 1}},
		ChangeOnlyInRight: {1, map[string]int{TypeDashboard: 1}},
	}
	if !reflect.DeepEqual(r.Summary.Counts, wantCounts) {
		t.Errorf("counts %v, want %v", r.Summary.Counts, wantCounts)
	}
	if r.Summary.TotalCount != 6 || r.Summary.LeftPackName != "netops" || r.Summary.LeftPackVersion != "1.2.0" ||
		r.Summary.RightPackName != "deployed" || r.Summary.RightPackVersion != "" || r.Summary.Timestamp != s.Timestamp {
		t.Errorf("summary %+v", r.Summary)
	}
	if s.Counts != nil || s.LeftPackName != "ignored" {
		t.Error("Compare changed the caller's summary")
	}
	if r.Rows[0].ChecksumLeft != "sha256:c1" || r.Rows[0].ChecksumRight != "sha256:c2" {
		t.Errorf("checksums of %+v", r.Rows[0])
	}
}

func TestCompareEmpty(t *testing.T) {
	r := Compare(Side{PackName: "a", PackVersion: "1"}, Side{PackName: "b", PackVersion: "2"}, Summary{})
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Summary struct {
			Counts map[string]map[string]any `json:"counts"`
		} `json:"summary"`
		Rows []any `json:"compare_rows"`
	}
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.Rows == nil || len(back.Rows) != 0 {
		t.Errorf("compare_rows %v in %s", back.Rows, data)
	}
	for _, c := range ChangeTypes {
		by, ok := back.Summary.Counts[c]["by_type"].(map[string]any)
		if !ok || len(by) != 0 || back.Summary.Counts[c]["count"] != float64(0) {
			t.Errorf("counts[%s] = %v in %s", c, back.Summary.Counts[c], data)
		}
	}
}

// keysOf returns the sorted keys of a JSON object.
func keysOf(t *testing.T, v any) []string {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%v is not an object", v)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func TestReportJSONKeys(t *testing.T) {
	left, right := compareSides()
	data, err := json.Marshal(Compare(left, right, Summary{}))
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		what string
		v    any
		want []string
	}{
		{"report", v, []string{"compare_rows", "summary"}},
		{"summary", v["summary"], []string{"common_deploy_vars", "compare_with", "context_vars", "counts", "customer_deploy_vars", "deployment_type",
			"left_pack_name", "left_pack_version", "right_pack_name", "right_pack_version", "single_tenant_deploy_vars", "timestamp", "total_count"}},
		{"counts", v["summary"].(map[string]any)["counts"], []string{"changed", "only_in_left", "only_in_right", "unchanged"}},
		{"count", v["summary"].(map[string]any)["counts"].(map[string]any)["changed"], []string{"by_type", "count"}},
		{"row", v["compare_rows"].([]any)[0], []string{"artifact_name", "artifact_type", "artifact_version_left", "artifact_version_right", "change_type",
			"checksum_left", "checksum_right", "definition_file_name", "pack_name_left", "pack_name_right", "pack_version_left", "pack_version_right"}},
	} {
		if got := keysOf(t, tc.v); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s keys %q, want %q", tc.what, got, tc.want)
		}
	}
}

func TestWriteReport(t *testing.T) {
	left, right := compareSides()
	r := Compare(left, right, Summary{Timestamp: "t"})
	for _, html := range []bool{false, true} {
		var b bytes.Buffer
		if err := WriteReport(&b, r, html); err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(&b)
		if err != nil {
			t.Fatal(err)
		}
		tr := tar.NewReader(zr)
		files := map[string][]byte{}
		var names []string
		for {
			hdr, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			names = append(names, hdr.Name)
			files[hdr.Name], _ = io.ReadAll(tr)
		}
		want := []string{"report.json"}
		if html {
			want = append(want, "report.html")
		}
		if !reflect.DeepEqual(names, want) {
			t.Fatalf("entries %q, want %q", names, want)
		}
		var back Report
		if err := json.Unmarshal(files["report.json"], &back); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back.Rows, r.Rows) || !bytes.Contains(files["report.json"], []byte("\n  \"summary\": {\n")) {
			t.Errorf("report.json:\n%s", files["report.json"])
		}
		if html {
			checkHTML(t, files["report.html"])
		}
	}
}
