package engine

import (
	"reflect"
	"testing"
)

func TestSubst(t *testing.T) {
	vars := map[string]string{"host": "web-1", "n": "3", "h": "x"}
	cases := [][2]string{
		{"$host", "web-1"},
		{"${host}name", "web-1name"},
		{"$hostname", "$hostname"},
		{"a$n-b", "a3-b"},
		{"$$n", "$3"},
		{"$", "$"},
		{"${nope}", "${nope}"},
		{"${host", "${host"},
		{"$h.$n", "x.3"},
		{"price $5", "price $5"},
	}
	for _, c := range cases {
		if got := subst(c[0], vars); got != c[1] {
			t.Errorf("subst(%q) = %q, want %q", c[0], got, c[1])
		}
	}
}

func TestBareValues(t *testing.T) {
	cases := map[string]any{"1": int64(1), "-2.5": -2.5, "true": true, "False": false, "null": nil, "web": "web", "": nil, "1e3": 1000.0}
	for in, want := range cases {
		if got := bareValue(in); got != want {
			t.Errorf("bareValue(%q) = %#v, want %#v", in, got, want)
		}
	}
}

func TestParseText(t *testing.T) {
	steps, err := ParseText(`
## comments start with ##
@dm:empty
  --> @dm:addrow host = 'web-1' & note = 'a --> b ## not a comment'  ## a comment
  --> @dm:save name = 'temp-hosts'
## new block
  --> @c:new-block
  --> *dm:filter cpu > 90 get host, cpu
`)
	if err != nil {
		t.Fatal(err)
	}
	want := []Step{
		{Tag: "@dm:empty", Comment: "comments start with ##"},
		{Tag: "@dm:addrow", Query: "host = 'web-1' & note = 'a --> b ## not a comment'", Comment: "a comment"},
		{Tag: "@dm:save", Query: "name = 'temp-hosts'"},
		{Tag: "@c:new-block", Comment: "new block"},
		{Tag: "*dm:filter", Query: "cpu > 90 get host, cpu"},
	}
	if !reflect.DeepEqual(steps, want) {
		t.Errorf("steps:\n%+v\nwant:\n%+v", steps, want)
	}
	for _, bad := range []string{"--> @dm:empty", "@dm:empty -->", "@dm:empty --> --> @dm:empty", "@dm:addrow a = 'x"} {
		if _, err := ParseText(bad); err == nil {
			t.Errorf("ParseText(%q): no error", bad)
		}
	}
}

// FuzzParseTime checks that strftime parsing never panics.
func FuzzParseTime(f *testing.F) {
	f.Add("%Y-%m-%d %H:%M:%S.%f%z", "2024-01-02 03:04:05.123+01:00")
	f.Add("%d/%b/%Y %I %p %j %s %Z", "02/Jan/2024 10 PM 002 17 UTC")
	f.Fuzz(func(t *testing.T, layout, s string) {
		_, _ = parseTime(layout, s)
		_ = formatTime(testNow, layout)
	})
}
