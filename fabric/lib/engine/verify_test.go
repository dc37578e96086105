package engine

import (
	"errors"
	"strings"
	"testing"
)

func TestVerify(t *testing.T) {
	cases := []struct {
		name  string
		steps string
		err   string // the whole error; "" for none
		param string
	}{
		{"ok", `@dm:empty --> @dm:addrow a = 1 --> @dm:sort columns = 'a' & order = 'desc'`, "", ""},
		{"bad choice", `@dm:empty --> @dm:addrow a = 1 --> @dm:sort columns = 'a' & order = 'up'`,
			"step 3 (@dm:sort): parameter 'order' must be 'asc' or 'desc', not 'up'", "order"},
		{"unknown bot", `@dm:empty --> @dm:nope a = 1`, "step 2 (@dm:nope): unknown bot", ""},
		{"wrong prefix", `@dm:filter a = 1`, "step 1 (@dm:filter): unknown bot; did you mean *dm:filter?", ""},
		{"no prefix", `dm:head`, "step 1 (dm:head): unknown bot; did you mean @dm:head? (a tag starts with @, * or #, as in @dm:head)", ""},
		{"missing param", `@dm:recall`, "step 1 (@dm:recall): missing parameter 'name'", "name"},
		{"unknown param", `@dm:head n = 1 & m = 2`, "step 1 (@dm:head): parameter 'm' is unknown (parameters: n)", "m"},
		{"param of a bot without any", `@dm:empty x = 1`, "step 1 (@dm:empty): parameter 'x' is unknown: @dm:empty takes no parameters", "x"},
		{"bad int", `@dm:head n = ten`, "step 1 (@dm:head): parameter 'n' must be an integer, not 'ten'", "n"},
		{"negative", `@dm:tail n = -1`, "step 1 (@dm:tail): parameter 'n' must not be negative, not '-1'", "n"},
		{"bad bool", `@dm:save name = 'x' & append = 'maybe'`, "step 1 (@dm:save): parameter 'append' must be 'yes' or 'no', not 'maybe'", "append"},
		{"bad number", `@c:timed-loop interval = soon --> @dm:empty`, "step 1 (@c:timed-loop): parameter 'interval' must be a number, not 'soon'", "interval"},
		{"zero interval", `@c:timed-loop interval = 0 --> @dm:empty`, "step 1 (@c:timed-loop): parameter 'interval' must be more than 0 seconds, not '0'", "interval"},
		{"zero increment", `@c:count-loop end = 3 & increment = 0 --> @dm:empty`, "step 1 (@c:count-loop): parameter 'increment' must not be 0", "increment"},
		{"bad regex", `@dm:selectcolumns include = '('`, "step 1 (@dm:selectcolumns): parameter 'include' is not a valid regex: error parsing regexp: missing closing ): `(`", "include"},
		{"empty required", `@dm:recall name = ''`, "step 1 (@dm:recall): parameter 'name' must not be empty", "name"},
		{"sample both", `@dm:sample n = 1 & frac = 0.5`, "step 1 (@dm:sample): parameter 'n' or 'frac' must be given, and not both", "n"},
		{"syntax", `@dm:addrow host = 'web-1' cpu = 3`, "step 1 (@dm:addrow): col 16: expected '&' between parameters, found 'c'", ""},
		{"free bot needs a param", `@dm:eval`, "step 1 (@dm:eval): at least one parameter is required", ""},
		{"bad expression", `@dm:eval x = 'a +* b'`, "step 1 (@dm:eval): parameter 'x' is not a valid expression: x:1:4: got '*', want primary expression", "x"},
		{"variable not checked", `@c:simple-loop loop_var = 'x' --> @dm:head n = $loop_var`, "", ""},
		{"end-if alone", `@dm:empty --> @exec:end-if`, "step 2 (@exec:end-if): @exec:end-if without *exec:if-shape", ""},
		{"bad cfxql", `@dm:empty --> *dm:filter cpu >`, "step 2 (*dm:filter): invalid query:", ""},
		{"filter without query", `*dm:filter`, "step 1 (*dm:filter): a query is required", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			steps, err := ParseText(c.steps)
			if err != nil {
				// Not a pipeline the text form accepts (a tag without
				// its prefix): verify the raw step.
				steps = []Step{{Tag: c.steps}}
			}
			err = (&Engine{}).Verify(steps)
			if c.err == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), c.err) {
				t.Fatalf("error:\n%v\nwant:\n%s", err, c.err)
			}
			var se *StepError
			if !errors.As(err, &se) || se.Param != c.param {
				t.Errorf("StepError %#v, want param %q", se, c.param)
			}
		})
	}
}

// TestVerifyStructure needs cfxql (the if-shape queries are parsed).
func TestVerifyStructure(t *testing.T) {
	cases := []struct{ steps, err string }{
		{`*exec:if-shape num_rows > 0 --> @dm:empty`, "step 1 (*exec:if-shape): no matching @exec:end-if before the end of the pipeline"},
		{`*exec:if-shape num_rows > 0 --> @c:new-block --> @exec:end-if`,
			"step 1 (*exec:if-shape): no matching @exec:end-if before step 2 (@c:new-block): a conditional may not span blocks\nstep 3 (@exec:end-if): @exec:end-if without *exec:if-shape"},
		{`*exec:if-shape num_rows > 0 --> *exec:if-shape num_columns = 1 --> @exec:end-if --> @exec:end-if`, ""},
		{`*exec:if-shape num_rows > 0 --> @c:simple-loop loop_var = 'a' --> @dm:empty --> @exec:end-if --> @dm:empty`, ""},
		{`@dm:head n = x --> @dm:nope --> @dm:recall`,
			"step 1 (@dm:head): parameter 'n' must be an integer, not 'x'\nstep 2 (@dm:nope): unknown bot\nstep 3 (@dm:recall): missing parameter 'name'"},
	}
	for _, c := range cases {
		steps, err := ParseText(c.steps)
		if err != nil {
			t.Fatal(err)
		}
		err = (&Engine{}).Verify(steps)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.err {
			t.Errorf("%s:\nerror:\n%s\nwant:\n%s", c.steps, got, c.err)
		}
	}
}

func TestRunVerifiesFirst(t *testing.T) {
	e, s := fixture(t)
	_, err := runText(t, e, `@dm:recall name = 'hosts' --> @dm:save name = 'copy' --> @dm:sort columns = 'cpu' & order = 'up'`)
	if err == nil || err.Error() != "step 3 (@dm:sort): parameter 'order' must be 'asc' or 'desc', not 'up'" {
		t.Fatalf("err = %v", err)
	}
	if _, ok := s.datasets["copy"]; ok {
		t.Error("a step ran before the pipeline was verified")
	}
}

func TestBotsAreDocumented(t *testing.T) {
	want := []string{"*dm:filter", "*exec:if-shape", "@c:count-loop", "@c:data-loop", "@c:new-block", "@c:simple-loop", "@c:timed-loop",
		"@dm:add-missing-columns", "@dm:addrow", "@dm:change-time-format", "@dm:concat", "@dm:dedup",
		"@dm:delete-dataset", "@dm:dropnull", "@dm:empty", "@dm:enrich", "@dm:eval", "@dm:explode",
		"@dm:extract", "@dm:fixnull", "@dm:grok", "@dm:head", "@dm:implode", "@dm:map", "@dm:object-add",
		"@dm:object-delete", "@dm:object-get", "@dm:object-list", "@dm:recall", "@dm:rename-columns",
		"@dm:sample", "@dm:save", "@dm:savedlist", "@dm:selectcolumns", "@dm:sort", "@dm:tail",
		"@dm:to-type", "@exec:end-if", "@files:loadfile"}
	var got []string
	for _, d := range Bots() {
		got = append(got, d.Tag)
		if d.Description == "" {
			t.Errorf("%s has no description", d.Tag)
		}
		for _, p := range d.Params {
			if p.Description == "" || p.Type == "" {
				t.Errorf("%s: parameter %s is not documented", d.Tag, p.Name)
			}
			if p.Type == "choice" && len(p.Choices) == 0 {
				t.Errorf("%s: parameter %s has no choices", d.Tag, p.Name)
			}
			if p.Default != "" {
				if err := checkValue(p, p.Default); err != nil {
					t.Errorf("%s: default of %s: %v", d.Tag, p.Name, err)
				}
			}
		}
		if !strings.Contains(d.String(), d.Tag) {
			t.Errorf("%s: String() = %q", d.Tag, d.String())
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("bots:\n%v\nwant:\n%v", got, want)
	}
}
