package pipeline

import (
	"strings"
	"testing"
)

const base = `{"name": "hot", "version": "2026_11_21_1", "data": {"name": "hot", "sequence": [
  {"tag": "@dm:empty", "query": "", "comment": "start"},
  {"tag": "*dm:filter", "query": "cpu > 90", "comment": ""}]}}`

func TestChecksumIgnoresKeyOrderAndWhitespace(t *testing.T) {
	reordered := `{
	"data": {"sequence": [{"comment": "start", "query": "", "tag": "@dm:empty"},
	                      {"query": "cpu > 90", "comment": "", "tag": "*dm:filter"}], "name": "hot"},
	"version": "2026_11_21_1",   "name": "hot"
}`
	a, err := Checksum([]byte(base))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Checksum([]byte(reordered))
	if err != nil {
		t.Fatal(err)
	}
	if a.Checksum != b.Checksum || len(a.Steps) != 2 || a.Steps[0] != b.Steps[0] || a.Steps[1] != b.Steps[1] {
		t.Fatalf("checksums differ:\n%+v\n%+v", a, b)
	}
	if a.Name != "hot" || a.Steps[1].Tag != "*dm:filter" || a.Steps[1].Index != 2 || len(a.Checksum) != 64 {
		t.Fatalf("unexpected result %+v", a)
	}
	changed, _ := Checksum([]byte(strings.Replace(base, "cpu > 90", "cpu > 80", 1)))
	if changed.Checksum == a.Checksum || changed.Steps[0] != a.Steps[0] || changed.Steps[1] == a.Steps[1] {
		t.Fatalf("a changed step must change its checksum and the whole, not the others")
	}
}

func TestCanonical(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"b": 1, "a": [true, null, "x"]}`, `{"a":[true,null,"x"],"b":1}`},
		{`[1.0, 1.50, 1e2, -0.0, 12345678901234567890123, 0.1]`, `[1,1.5,100,0,12345678901234567890123,0.1]`},
		{`"tab\t nl\n quote\" uni\u00e9 \u0001"`, `"tab\t nl\n quote\" unié \u0001"`},
		{`{"é": 1, "z": 2, "A": 3}`, `{"A":3,"z":2,"é":1}`},
	}
	for _, tt := range tests {
		v, err := Decode([]byte(tt.in))
		if err != nil {
			t.Fatal(err)
		}
		got, err := Canonical(v)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tt.want {
			t.Errorf("Canonical(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestChecksumErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"{\n  \"name\": \"x\",\n  \"data\": {,}\n}", "invalid JSON at line 3, column 12"},
		{"", "the pipeline is empty"},
		{"  \n# only a comment\n", "the pipeline is empty"},
		{`{"name": "x"`, "invalid JSON: the document is empty or cut short"},
		{`[1, 2]`, "not a pipeline: the document is an array, want an object"},
		{`{"data": {"sequence": "x"}}`, "not a pipeline: data.sequence is a string, want a list of steps"},
		{`{"a": 1} {"b": 2}`, "unexpected data after the document"},
	}
	for _, tt := range tests {
		_, err := Checksum([]byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Checksum(%q) error = %v, want %q", tt.in, err, tt.want)
		}
	}
}

func TestChecksumFileEmptyJSON(t *testing.T) {
	if _, err := ChecksumFile(nil, "p.json"); err == nil || err.Error() != "invalid JSON: the document is empty or cut short" {
		t.Fatalf("empty .json file: %v", err)
	}
}

// FuzzChecksum checks that no input panics and that the checksum of a
// document equals that of its canonical form.
func FuzzChecksum(f *testing.F) {
	f.Add(base)
	f.Add(`{"data": {"sequence": []}}`)
	f.Add(`[1e400]`)
	f.Add("name: hot\ndata:\n  sequence:\n    - {tag: '@dm:empty', query: '', n: 1.5e3}\n")
	f.Add("## start\n@dm:empty --> *dm:filter cpu > 90\n")
	f.Fuzz(func(t *testing.T, in string) {
		c, err := Checksum([]byte(in))
		if err != nil {
			return
		}
		v, err := Document([]byte(in), "")
		if err != nil {
			t.Fatalf("Checksum succeeds but Document fails: %v", err)
		}
		canon, err := Canonical(v)
		if err != nil {
			t.Fatal(err)
		}
		again, err := Checksum(canon)
		if err != nil || again.Checksum != c.Checksum {
			t.Fatalf("canonical form checksums differently: %v", err)
		}
	})
}

// TestChecksumSameInJSONAndYAML: one document written in JSON and in YAML
// has one checksum, whatever spelling its numbers have.
func TestChecksumSameInJSONAndYAML(t *testing.T) {
	tests := []struct{ json, yaml string }{
		{`{"name": "p", "n": -0.0}`, "name: p\nn: -0.0\n"},
		{`{"name": "p", "n": -0.0}`, "name: p\nn: 0\n"},
		{`{"name": "p", "n": 1.0}`, "name: p\nn: 1\n"},
		{`{"name": "p", "n": 1e2}`, "name: p\nn: 100.0\n"},
	}
	for _, tt := range tests {
		j, err := ChecksumFile([]byte(tt.json), "p.json")
		if err != nil {
			t.Fatal(err)
		}
		y, err := ChecksumFile([]byte(tt.yaml), "p.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if j.Checksum != y.Checksum {
			t.Errorf("%s and %q checksum differently", tt.json, tt.yaml)
		}
	}
}
