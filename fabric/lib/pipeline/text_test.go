package pipeline

import (
	"reflect"
	"strings"
	"testing"
)

// domainText is the example of DOMAIN.md.
const domainText = `## comments start with ##
@dm:empty
  --> @dm:addrow host = 'web-1' & cpu = 93.5
  --> @dm:save name = 'temp-hosts'
  --> @c:new-block
  --> @dm:recall name = 'temp-hosts'
  --> *dm:filter cpu > 90 get host, cpu
  --> @dm:save name = 'hot-hosts'
`

func step(tag, query, comment string) Step {
	return Step{Tag: tag, Query: query, Comment: comment}
}

func TestParseText(t *testing.T) {
	tests := []struct {
		name, in string
		want     []Step
	}{
		{"domain example", domainText, []Step{
			step("@dm:empty", "", "comments start with ##"),
			step("@dm:addrow", "host = 'web-1' & cpu = 93.5", ""),
			step("@dm:save", "name = 'temp-hosts'", ""),
			step("@c:new-block", "", ""),
			step("@dm:recall", "name = 'temp-hosts'", ""),
			step("*dm:filter", "cpu > 90 get host, cpu", ""),
			step("@dm:save", "name = 'hot-hosts'", ""),
		}},
		{"one line", "@dm:empty --> @dm:head n = 5-->#es:query x>1", []Step{
			step("@dm:empty", "", ""), step("@dm:head", "n = 5", ""), step("#es:query", "x>1", ""),
		}},
		{"separators at line ends", "@dm:empty -->\n@dm:head n = 5 -->\n  @dm:tail n = 1\n", []Step{
			step("@dm:empty", "", ""), step("@dm:head", "n = 5", ""), step("@dm:tail", "n = 1", ""),
		}},
		{"a step across lines", "@dm:addrow host = 'a'\n   & cpu = 1\n\t& mem = 2\n--> @dm:save name = 'x'", []Step{
			step("@dm:addrow", "host = 'a' & cpu = 1 & mem = 2", ""), step("@dm:save", "name = 'x'", ""),
		}},
		{"comments go to the next step", "## one\n##two\n@dm:empty\n  ## three\n  -->\n  ## four\n  @dm:head n = 1\n## trailing, dropped\n", []Step{
			step("@dm:empty", "", "one\ntwo"), step("@dm:head", "n = 1", "three\nfour"),
		}},
		{"a comment inside a step goes to the next", "@dm:addrow a = 1\n## about b\n & b = 2 --> @dm:save name = 'x'", []Step{
			step("@dm:addrow", "a = 1 & b = 2", ""), step("@dm:save", "name = 'x'", "about b"),
		}},
		{"quotes keep --> and ## and spaces", "@dm:eval x = 'a --> b'  &  y = \"## c\n  d\" & z = 'it\\'s'", []Step{
			step("@dm:eval", "x = 'a --> b' & y = \"## c\n  d\" & z = 'it\\'s'", ""),
		}},
		{"windows line ends and a BOM", "\ufeff## hi\r\n@dm:empty\r\n  --> @dm:head n = 1\r\n", []Step{
			step("@dm:empty", "", "hi"), step("@dm:head", "n = 1", ""),
		}},
		{"loops and conditionals", "@c:simple-loop loop_var = 'a,b' --> *exec:if-shape num_rows > 0 --> @exec:end-if", []Step{
			step("@c:simple-loop", "loop_var = 'a,b'", ""), step("*exec:if-shape", "num_rows > 0", ""), step("@exec:end-if", "", ""),
		}},
	}
	for _, tt := range tests {
		got, err := ParseText(tt.in)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
		again, err := ParseText(ToText(got))
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Errorf("%s: ToText does not read back (%v):\n%s", tt.name, err, ToText(got))
		}
	}
}

func TestParseTextErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "no steps: the text form needs at least one bot, like @dm:empty"},
		{"## only a comment\n\n", "no steps"},
		{"--> @dm:empty", "line 1: --> with no bot before it"},
		{"@dm:empty\n  -->\n", "line 2: --> with no bot after it"},
		{"@dm:empty\n  -->\n  --> @dm:head", "line 3: empty step: no bot between this --> and the one on line 2"},
		{"@dm:empty\n  --> dm:head n = 1", `line 2: step 2: "dm:head" is not a bot tag (want @ns:bot, *ns:bot or #ns:bot)`},
		{"@dm:empty\n\n  --> @dmhead", `line 3: step 2: "@dmhead" is not a bot tag`},
		{"@dm:empty --> @dm:eval x = 'open\n  --> @dm:head", "line 1: the quote ' opened here is never closed"},
		{"@dm:empty\n# not a comment\n", "line 2: comments start with ##, not #"},
		{"# not a comment\n@dm:empty", "line 1: comments start with ##, not #"},
		{"@dm:empty\n  @dm:head n = 1", "line 2: a bot starts this line but no --> links it to the step before"},
		{"@dm:empty\n#es:query x", "line 2: a bot starts this line but no -->"},
	}
	for _, tt := range tests {
		_, err := ParseText(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseText(%q) error = %v, want %q", tt.in, err, tt.want)
		}
	}
}

func TestToText(t *testing.T) {
	got := ToText([]Step{step("@dm:empty", "", "start\n\nhere"), step("*dm:filter", "cpu > 90", "hot")})
	want := "## start\n##\n## here\n@dm:empty\n    ## hot\n    --> *dm:filter cpu > 90\n"
	if got != want {
		t.Fatalf("ToText:\n%s\nwant\n%s", got, want)
	}
}

// FuzzParseText checks that no input panics, that every step it returns
// has a valid tag, and that ToText reads back as the same steps.
func FuzzParseText(f *testing.F) {
	f.Add(domainText)
	f.Add("@dm:eval x = 'a --> b' & y = \"## c\n d\"")
	f.Add("## a\n@dm:empty -->\n## b\n @dm:head n = 1 \\' -->*x:y")
	f.Add("--> -->")
	f.Fuzz(func(t *testing.T, in string) {
		steps, err := ParseText(in)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "line ") && !strings.HasPrefix(err.Error(), "no steps") {
				t.Fatalf("error without a line: %v", err)
			}
			return
		}
		if len(steps) == 0 {
			t.Fatal("no steps and no error")
		}
		for _, s := range steps {
			if !ValidTag(s.Tag) {
				t.Fatalf("invalid tag %q", s.Tag)
			}
		}
		text := ToText(steps)
		again, err := ParseText(text)
		if err != nil {
			t.Fatalf("ToText does not parse: %v\n%s", err, text)
		}
		if !reflect.DeepEqual(again, steps) {
			t.Fatalf("ToText reads back differently:\n%q\n%q", steps, again)
		}
	})
}
