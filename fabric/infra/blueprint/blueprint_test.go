package blueprint

import (
	"reflect"
	"strings"
	"testing"
)

// TestParseGood checks that well-formed blueprints, as the artifact store
// hands them over (YAML already turned into JSON), parse and pass Check.
func TestParseGood(t *testing.T) {
	full := `{
		"id": "dep-1", "name": "Dep One", "version": 1.0, "category": "ops",
		"comment": "a comment", "enabled": false, "auto_deploy": true,
		"type": "Service", "provider": "fabric", "attrs": {"team": "noc", "n": 3},
		"service_pipelines": [
			{"name": "ingest", "label": "ingest-a", "version": "2024_01_31_1", "site": "loc.*",
			 "instances": 2, "scaling_policy": {"min_instances": 1, "max_instances": 4}},
			{"name": "ingest", "label": "ingest-b", "version": "*", "site": "Edge-1", "site_type": "name"}
		],
		"action_pipelines": [{"name": "fix", "site": "*", "site_type": "regex"}],
		"scheduled_pipelines": [{"name": "report", "version": "2024_12_01_10", "cron_expression": "0 2 * * *"}]
	}`
	b, err := Parse([]byte(full))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	no := false
	want := &Blueprint{
		ID: "dep-1", Name: "Dep One", Version: "1.0", Category: "ops", Comment: "a comment",
		Enabled: &no, AutoDeploy: true, Type: "Service", Provider: "fabric",
		Attrs: map[string]any{"team": "noc", "n": float64(3)},
		Service: []Entry{
			{Name: "ingest", Label: "ingest-a", Version: "2024_01_31_1", Site: "loc.*", Instances: 2,
				ScalingPolicy: &ScalingPolicy{MinInstances: 1, MaxInstances: 4}},
			{Name: "ingest", Label: "ingest-b", Version: "*", Site: "Edge-1", SiteType: "name"},
		},
		Action:    []Entry{{Name: "fix", Site: "*", SiteType: "regex"}},
		Scheduled: []Entry{{Name: "report", Version: "2024_12_01_10", Cron: "0 2 * * *"}},
	}
	if !reflect.DeepEqual(b, want) {
		t.Fatalf("Parse = %+v\nwant %+v", b, want)
	}

	for _, tc := range []struct{ name, doc string }{
		{"minimal", `{"id": "d"}`},
		{"empty lists", `{"id": "d", "service_pipelines": [], "action_pipelines": [], "scheduled_pipelines": []}`},
		{"blueprint version as string", `{"id": "d", "version": "1.0"}`},
		{"blueprint version as integer", `{"id": "d", "version": 2}`},
		{"entry version null", `{"id": "d", "service_pipelines": [{"name": "a", "version": null}]}`},
		{"entry version empty", `{"id": "d", "service_pipelines": [{"name": "a", "version": ""}]}`},
		{"same pipeline, two labels", `{"id": "d", "service_pipelines": [{"name": "a"}, {"name": "a", "label": "a2"}]}`},
		{"scaling min only", `{"id": "d", "service_pipelines": [{"name": "a", "scaling_policy": {"min_instances": 3}}]}`},
		{"scaling max only", `{"id": "d", "service_pipelines": [{"name": "a", "scaling_policy": {"max_instances": 3}}]}`},
		{"scaling min = max", `{"id": "d", "service_pipelines": [{"name": "a", "scaling_policy": {"min_instances": 2, "max_instances": 2}}]}`},
		{"instances 0", `{"id": "d", "service_pipelines": [{"name": "a", "instances": 0}]}`},
		{"site alternation", `{"id": "d", "service_pipelines": [{"name": "a", "site": "east|west"}]}`},
		{"site_type ignored without a site", `{"id": "d", "service_pipelines": [{"name": "a", "site_type": "name"}]}`},
		{"cron names and steps", `{"id": "d", "scheduled_pipelines": [{"name": "a", "cron_expression": "*/15 8-18 * JAN-MAR mon-fri"}]}`},
		{"cron with zone", `{"id": "d", "scheduled_pipelines": [{"name": "a", "cron_expression": "CRON_TZ=Europe/Paris 0 2 * * *"}]}`},
		{"unknown fields ignored", `{"id": "d", "owner": "x", "service_pipelines": [{"name": "a", "color": "red"}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Parse([]byte(tc.doc))
			if err != nil {
				t.Fatalf("Parse(%s): %v", tc.doc, err)
			}
			if b == nil {
				t.Fatalf("Parse(%s): nil blueprint", tc.doc)
			}
		})
	}
}

// TestParseBad checks the exact error Parse gives for each kind of
// blueprint Check refuses, and that the blueprint is still returned.
func TestParseBad(t *testing.T) {
	const notQuoted = " is a number: write the version in quotes (YAML reads 2020_01_31_1 unquoted as the number 202001311)"
	const notVersion = " is not a pipeline version (YYYY_MM_DD_N, or * for the latest published)"
	for _, tc := range []struct{ name, doc, err string }{
		{"no id", `{"name": "x"}`, "id: empty"},
		{"blank id", `{"id": " \t"}`, "id: empty"},
		{"entry without name", `{"id": "d", "service_pipelines": [{"label": "x"}]}`,
			"service_pipelines[0].name: empty"},
		{"entry with blank name", `{"id": "d", "action_pipelines": [{"name": "a"}, {"name": "  "}]}`,
			"action_pipelines[1].name: empty"},
		{"pipeline twice without labels", `{"id": "d", "service_pipelines": [{"name": "a"}, {"name": "a"}]}`,
			`service_pipelines[1]: label "a" is also service_pipelines[0]'s (give each entry its own label)`},
		{"label used twice across kinds", `{"id": "d", "service_pipelines": [{"name": "a", "label": "x"}], "action_pipelines": [{"name": "b", "label": "x"}]}`,
			`action_pipelines[0]: label "x" is also service_pipelines[0]'s (give each entry its own label)`},
		{"label equal to another's name", `{"id": "d", "scheduled_pipelines": [{"name": "a", "cron_expression": "* * * * *"}], "action_pipelines": [{"name": "b", "label": "a"}]}`,
			`action_pipelines[0]: label "a" is also scheduled_pipelines[0]'s (give each entry its own label)`},
		{"bad site regex", `{"id": "d", "service_pipelines": [{"name": "a", "site": "loc("}]}`,
			"service_pipelines[0]: site \"loc(\" is not a regular expression: missing closing ): `loc(`"},
		{"bad site regex repeat", `{"id": "d", "action_pipelines": [{"name": "a", "site": "*x", "site_type": "regex"}]}`,
			"action_pipelines[0]: site \"*x\" is not a regular expression: missing argument to repetition operator: `*`"},
		{"bad site_type", `{"id": "d", "service_pipelines": [{"name": "a", "site": "x", "site_type": "glob"}]}`,
			`service_pipelines[0]: site_type is regex or name, not "glob"`},
		{"site_type in capitals", `{"id": "d", "service_pipelines": [{"name": "a", "site": "x", "site_type": "Name"}]}`,
			`service_pipelines[0]: site_type is regex or name, not "Name"`},
		{"min above max", `{"id": "d", "service_pipelines": [{"name": "a", "scaling_policy": {"min_instances": 5, "max_instances": 2}}]}`,
			"service_pipelines[0].scaling_policy: min_instances 5 and max_instances 2 do not make a range"},
		{"negative min", `{"id": "d", "service_pipelines": [{"name": "a", "scaling_policy": {"min_instances": -1, "max_instances": 2}}]}`,
			"service_pipelines[0].scaling_policy: min_instances -1 and max_instances 2 do not make a range"},
		{"negative max", `{"id": "d", "service_pipelines": [{"name": "a", "scaling_policy": {"max_instances": -3}}]}`,
			"service_pipelines[0].scaling_policy: min_instances 0 and max_instances -3 do not make a range"},
		{"negative instances", `{"id": "d", "service_pipelines": [{"name": "a", "instances": -2}]}`,
			"service_pipelines[0].instances: -2 is below 0"},
		{"unquoted date version", `{"id": "d", "service_pipelines": [{"name": "a", "version": 202001311}]}`,
			"service_pipelines[0].version: 202001311" + notQuoted},
		{"unquoted decimal version", `{"id": "d", "action_pipelines": [{"name": "a", "version": 1.0}]}`,
			"action_pipelines[0].version: 1.0" + notQuoted},
		{"version not a pipeline version", `{"id": "d", "service_pipelines": [{"name": "a", "version": "latest"}]}`,
			`service_pipelines[0].version: "latest"` + notVersion},
		{"version with short month", `{"id": "d", "service_pipelines": [{"name": "a", "version": "2024_1_31_1"}]}`,
			`service_pipelines[0].version: "2024_1_31_1"` + notVersion},
		{"version without its number", `{"id": "d", "service_pipelines": [{"name": "a", "version": "2024_01_31"}]}`,
			`service_pipelines[0].version: "2024_01_31"` + notVersion},
		{"version inf", `{"id": "d", "service_pipelines": [{"name": "a", "version": "inf"}]}`,
			`service_pipelines[0].version: "inf"` + notVersion},
		{"unquoted huge version", `{"id": "d", "service_pipelines": [{"name": "a", "version": 1e400}]}`,
			"service_pipelines[0].version: 1e400" + notQuoted},
		{"unquoted negative version", `{"id": "d", "service_pipelines": [{"name": "a", "version": -2}]}`,
			"service_pipelines[0].version: -2" + notQuoted},
		{"version with trailing text", `{"id": "d", "service_pipelines": [{"name": "a", "version": "2024_01_31_1 "}]}`,
			`service_pipelines[0].version: "2024_01_31_1 "` + notVersion},
		{"scheduled without cron", `{"id": "d", "scheduled_pipelines": [{"name": "a"}]}`,
			"scheduled_pipelines[0].cron_expression: a scheduled pipeline needs one"},
		{"cron on a service", `{"id": "d", "service_pipelines": [{"name": "a", "cron_expression": "* * * * *"}]}`,
			"service_pipelines[0].cron_expression: only scheduled pipelines run on a cron"},
		{"cron on an action", `{"id": "d", "action_pipelines": [{"name": "a", "cron_expression": "* * * * *"}]}`,
			"action_pipelines[0].cron_expression: only scheduled pipelines run on a cron"},
		{"cron minute out of range", `{"id": "d", "scheduled_pipelines": [{"name": "a", "cron_expression": "61 * * * *"}]}`,
			`scheduled_pipelines[0].cron_expression: "61 * * * *" is not a five-field cron expression: end of range (61) above maximum (59): 61`},
		{"cron with seconds", `{"id": "d", "scheduled_pipelines": [{"name": "a", "cron_expression": "0 0 2 * * *"}]}`,
			`scheduled_pipelines[0].cron_expression: "0 0 2 * * *" is not a five-field cron expression: expected exactly 5 fields, found 6: [0 0 2 * * *]`},
		{"cron too short", `{"id": "d", "scheduled_pipelines": [{"name": "a", "cron_expression": "* *"}]}`,
			`scheduled_pipelines[0].cron_expression: "* *" is not a five-field cron expression: expected exactly 5 fields, found 2: [* *]`},
		{"cron bad word", `{"id": "d", "scheduled_pipelines": [{"name": "a", "cron_expression": "@sometimes"}]}`,
			`scheduled_pipelines[0].cron_expression: "@sometimes" is not a five-field cron expression: give the five fields (minute hour day-of-month month day-of-week), such as "*/15 * * * *" for every 15 minutes`},
		{"cron shorthand", `{"id": "d", "scheduled_pipelines": [{"name": "a", "cron_expression": "@hourly"}]}`,
			`scheduled_pipelines[0].cron_expression: "@hourly" is not a five-field cron expression: give the five fields (minute hour day-of-month month day-of-week); @hourly is "0 * * * *"`},
		{"cron never", `{"id": "d", "scheduled_pipelines": [{"name": "a", "cron_expression": "0 0 30 2 *"}]}`,
			`scheduled_pipelines[0].cron_expression: "0 0 30 2 *" never fires: none of its months has one of its days of the month`},
		{"cron zero step", `{"id": "d", "scheduled_pipelines": [{"name": "a", "cron_expression": "*/0 * * * *"}]}`,
			`scheduled_pipelines[0].cron_expression: "*/0 * * * *" is not a five-field cron expression: step of range should be a positive number: */0`},
		// the first fault found is the one reported: entries in the order
		// service, scheduled, action; within one, name, label, site,
		// scaling, version, instances, cron.
		{"first fault wins", `{"id": "d", "service_pipelines": [{"name": "a", "site": "(", "version": "x", "instances": -1}]}`,
			"service_pipelines[0]: site \"(\" is not a regular expression: missing closing ): `(`"},
		{"services before scheduled", `{"id": "d", "scheduled_pipelines": [{"name": "a"}], "service_pipelines": [{"name": "b", "instances": -1}]}`,
			"service_pipelines[0].instances: -1 is below 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Parse([]byte(tc.doc))
			if err == nil {
				t.Fatalf("Parse(%s): no error, want %q", tc.doc, tc.err)
			}
			if err.Error() != tc.err {
				t.Fatalf("Parse(%s):\n got %q\nwant %q", tc.doc, err, tc.err)
			}
			if b == nil {
				t.Fatalf("Parse(%s): a blueprint that fails Check should still be returned", tc.doc)
			}
		})
	}
}

// TestParseBadJSON checks that documents JSON cannot read into a
// blueprint are refused without a blueprint.
func TestParseBadJSON(t *testing.T) {
	for _, doc := range []string{
		``, `{`, `[]`, `"x"`, `{"id": 3}`,
		`{"id": "d", "version": true}`,
		`{"id": "d", "version": {}}`,
		`{"id": "d", "service_pipelines": [{"name": "a", "version": [1]}]}`,
		`{"id": "d", "service_pipelines": [{"name": "a", "instances": "2"}]}`,
		`{"id": "d", "service_pipelines": [{"name": "a", "instances": 1.5}]}`,
		`{"id": "d", "service_pipelines": {"name": "a"}}`,
		`{"id": "d", "service_pipelines": [{"name": "a", "scaling_policy": {"min_instances": "1"}}]}`,
	} {
		b, err := Parse([]byte(doc))
		if err == nil {
			t.Errorf("Parse(%s): no error", doc)
		}
		if b != nil {
			t.Errorf("Parse(%s): blueprint %+v, want nil", doc, b)
		}
	}
}

// TestText checks that Text reads strings and numbers as written.
func TestText(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want Text
	}{
		{`"2024_01_31_1"`, "2024_01_31_1"},
		{`"*"`, "*"},
		{`""`, ""},
		{`1.0`, "1.0"},
		{`2`, "2"},
		{`-0.5e3`, "-0.5e3"},
		{`202001311`, "202001311"},
		{`null`, ""},
		{`"\u00e9"`, "é"},
	} {
		var got Text = "before"
		if err := got.UnmarshalJSON([]byte(tc.doc)); err != nil {
			t.Errorf("UnmarshalJSON(%s): %v", tc.doc, err)
			continue
		}
		if got != tc.want {
			t.Errorf("UnmarshalJSON(%s) = %q, want %q", tc.doc, got, tc.want)
		}
	}
	for _, doc := range []string{`true`, `{}`, `[]`, `"x`, `01`} {
		var got Text
		if err := got.UnmarshalJSON([]byte(doc)); err == nil {
			t.Errorf("UnmarshalJSON(%s) = %q, want an error", doc, got)
		}
	}
}

// TestEntryWant checks the instances a service entry wants: instances
// (default 1) held within the scaling policy's bounds.
func TestEntryWant(t *testing.T) {
	for _, tc := range []struct {
		instances int
		policy    *ScalingPolicy
		want      int
	}{
		{0, nil, 1},
		{-3, nil, 1},
		{1, nil, 1},
		{5, nil, 5},
		{0, &ScalingPolicy{}, 1},
		{0, &ScalingPolicy{MinInstances: 2}, 2},
		{3, &ScalingPolicy{MinInstances: 2}, 3},
		{10, &ScalingPolicy{MaxInstances: 4}, 4},
		{3, &ScalingPolicy{MinInstances: 1, MaxInstances: 4}, 3},
		{0, &ScalingPolicy{MinInstances: 3, MaxInstances: 4}, 3},
		{9, &ScalingPolicy{MinInstances: 3, MaxInstances: 4}, 4},
		{5, &ScalingPolicy{MinInstances: 2, MaxInstances: 0}, 5}, // max 0: no upper bound
		{2, &ScalingPolicy{MinInstances: 2, MaxInstances: 2}, 2},
	} {
		e := Entry{Name: "a", Instances: tc.instances, ScalingPolicy: tc.policy}
		if got := e.Want(); got != tc.want {
			t.Errorf("Want(instances %d, policy %+v) = %d, want %d", tc.instances, tc.policy, got, tc.want)
		}
	}
}

// TestEntryKey checks that an entry's key is its label, else its name.
func TestEntryKey(t *testing.T) {
	if got := (Entry{Name: "p", Label: "l"}).Key(); got != "l" {
		t.Errorf("Key = %q, want l", got)
	}
	if got := (Entry{Name: "p"}).Key(); got != "p" {
		t.Errorf("Key = %q, want p", got)
	}
}

// TestEntryAnyVersion checks which versions mean the latest published.
func TestEntryAnyVersion(t *testing.T) {
	for v, want := range map[Text]bool{"": true, "*": true, "2024_01_01_1": false, "**": false, " ": false} {
		if got := (Entry{Version: v}).AnyVersion(); got != want {
			t.Errorf("AnyVersion(%q) = %v, want %v", v, got, want)
		}
	}
}

// TestSiteMatcher checks which sites an entry's site and site_type
// match: a regex anchored at both ends, a name compared without case,
// any site for "" and "*".
func TestSiteMatcher(t *testing.T) {
	for _, tc := range []struct {
		site, typ, name string
		want            bool
	}{
		{"", "", "anything", true},
		{"", "", "", true},
		{"*", "", "anything", true},
		{"*", "name", "anything", true},
		{"*", "regex", "anything", true},
		{"", "glob", "anything", true}, // no site: site_type is not read
		{"loc.*", "", "local", true},
		{"loc.*", "regex", "local", true},
		{"loc.*", "", "loc", true},
		{"loc", "", "local", false},
		{"loc", "", "loc", true},
		{"loc", "", "xloc", false},
		{"loc.*", "", "xlocal", false},
		{"loc.*", "", "Local", false}, // a regex is case-sensitive
		{"(?i)loc.*", "", "Local", true},
		{"east|west", "", "east", true},
		{"east|west", "", "west", true},
		{"east|west", "", "eastwest", false},
		{"east|west", "", "east-1", false},
		{"site-[0-9]+", "", "site-12", true},
		{"site-[0-9]+", "", "site-12a", false},
		{"Local", "name", "local", true},
		{"Local", "name", "LOCAL", true},
		{"Local", "name", "Local", true},
		{"Local", "name", "local2", false},
		{"loc.*", "name", "local", false}, // a name is not a pattern
		{"loc.*", "name", "LOC.*", true},
	} {
		e := Entry{Name: "p", Site: tc.site, SiteType: tc.typ}
		match, err := e.SiteMatcher()
		if err != nil {
			t.Errorf("SiteMatcher(%q, %q): %v", tc.site, tc.typ, err)
			continue
		}
		if got := match(tc.name); got != tc.want {
			t.Errorf("SiteMatcher(%q, %q)(%q) = %v, want %v", tc.site, tc.typ, tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct{ site, typ, err string }{
		{"(", "", "site \"(\" is not a regular expression: missing closing ): `(`"},
		{"a[", "regex", "site \"a[\" is not a regular expression: missing closing ]: `[`"},
		{"x", "glob", `site_type is regex or name, not "glob"`},
		{"x", "REGEX", `site_type is regex or name, not "REGEX"`},
	} {
		match, err := (Entry{Site: tc.site, SiteType: tc.typ}).SiteMatcher()
		if err == nil || err.Error() != tc.err {
			t.Errorf("SiteMatcher(%q, %q) = %v, want error %q", tc.site, tc.typ, err, tc.err)
		}
		if match != nil {
			t.Errorf("SiteMatcher(%q, %q): a matcher with the error", tc.site, tc.typ)
		}
	}
}

// TestSiteMatcherEdgeRegexes checks regexes that compile on their own but
// could not be wrapped in ^(?:...)$ as text: they must match as anchored
// regexes, not panic.
func TestSiteMatcherEdgeRegexes(t *testing.T) {
	deep := strings.Repeat("(", 999) + "a" + strings.Repeat(")", 999)
	for _, tc := range []struct {
		site, name string
		want       bool
	}{
		{`\Qloc`, "loc", true},       // \Q quotes to the end: wrapping as text would quote the ")$"
		{`\Qloc`, "local", false},    // and still anchored
		{`\Qa.b`, "axb", false},      // the dot is quoted
		{`\Qa)|(b\E`, "a)|(b", true}, // a closed quote
		{`\Qa)|(b\E`, "a", false},    // which is no alternation
		{`x|\Qy`, "y", true},         // an alternation ending in a quote
		{`x|\Qy`, "xy", false},       // anchored around the whole alternation
		{deep, "a", true},            // nests one level short of the limit
		{deep, "aa", false},          // and anchored
		{`a*?`, "aaa", true},         // non-greedy: the whole name must still match
		{`a|ab`, "ab", true},         // leftmost-first would stop at "a"
		{`(a|ab)(c|bcd)`, "abcd", true},
		{`^loc$`, "loc", true},
		{`(?m)^loc$`, "loc", true},
	} {
		match, err := (Entry{Site: tc.site}).SiteMatcher()
		if err != nil {
			t.Errorf("SiteMatcher(%.40q): %v", tc.site, err)
			continue
		}
		if got := match(tc.name); got != tc.want {
			t.Errorf("SiteMatcher(%.40q)(%q) = %v, want %v", tc.site, tc.name, got, tc.want)
		}
	}
	// and Check accepts such a blueprint instead of panicking
	b := &Blueprint{ID: "d", Service: []Entry{{Name: "p", Site: deep}, {Name: "q", Site: `\Qloc`}}}
	if err := b.Check(); err != nil {
		t.Errorf("Check: %v", err)
	}
}

// TestIsEnabled checks that a blueprint is enabled unless it says false.
func TestIsEnabled(t *testing.T) {
	no, yes := false, true
	for _, tc := range []struct {
		enabled *bool
		want    bool
	}{{nil, true}, {&yes, true}, {&no, false}} {
		if got := (&Blueprint{Enabled: tc.enabled}).IsEnabled(); got != tc.want {
			t.Errorf("IsEnabled(%v) = %v, want %v", tc.enabled, got, tc.want)
		}
	}
	for doc, want := range map[string]bool{
		`{"id": "d"}`:                   true,
		`{"id": "d", "enabled": true}`:  true,
		`{"id": "d", "enabled": false}`: false,
		`{"id": "d", "enabled": null}`:  true,
	} {
		b, err := Parse([]byte(doc))
		if err != nil {
			t.Fatalf("Parse(%s): %v", doc, err)
		}
		if got := b.IsEnabled(); got != want {
			t.Errorf("Parse(%s).IsEnabled() = %v, want %v", doc, got, want)
		}
	}
}

// TestBlueprintText checks that a blueprint's text is its description,
// else its comment.
func TestBlueprintText(t *testing.T) {
	for _, tc := range []struct{ desc, comment, want string }{
		{"", "", ""},
		{"d", "", "d"},
		{"", "c", "c"},
		{"d", "c", "d"},
	} {
		b := &Blueprint{Description: tc.desc, Comment: tc.comment}
		if got := b.Text(); got != tc.want {
			t.Errorf("Text(description %q, comment %q) = %q, want %q", tc.desc, tc.comment, got, tc.want)
		}
	}
}

// TestEntries checks that Entries lists services, then scheduled, then
// actions, each with its kind, in their written order.
func TestEntries(t *testing.T) {
	b := &Blueprint{
		Action:    []Entry{{Name: "a1"}, {Name: "a2"}},
		Scheduled: []Entry{{Name: "c1", Cron: "0 0 * * *"}},
		Service:   []Entry{{Name: "s1"}, {Name: "s2"}},
	}
	var got []string
	for _, l := range b.Entries() {
		got = append(got, l.Kind+":"+l.Name)
	}
	want := []string{"service:s1", "service:s2", "scheduled:c1", "action:a1", "action:a2"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Entries = %v, want %v", got, want)
	}
	if es := (&Blueprint{}).Entries(); len(es) != 0 {
		t.Errorf("Entries of an empty blueprint = %v", es)
	}
}

// TestCheckDirect checks Check on blueprints built in code, not parsed:
// a version that looks like a number but was given as text still gets
// the quoting advice.
func TestCheckDirect(t *testing.T) {
	b := &Blueprint{ID: "d", Service: []Entry{{Name: "a", Version: "3"}}}
	want := "service_pipelines[0].version: 3 is a number: write the version in quotes (YAML reads 2020_01_31_1 unquoted as the number 202001311)"
	if err := b.Check(); err == nil || err.Error() != want {
		t.Errorf("Check = %v, want %q", err, want)
	}
	if err := (&Blueprint{ID: "d"}).Check(); err != nil {
		t.Errorf("Check of an empty blueprint: %v", err)
	}
}

// TestParseCron checks ParseCron's five fields, shorthands and zones, and
// its refusals.
func TestParseCron(t *testing.T) {
	for _, expr := range []string{
		"* * * * *", "0 2 * * *", "*/5 * * * *", "0 0 1 1 *", "0 9-17 * * MON-FRI",
		"CRON_TZ=UTC 0 0 * * *", "TZ=Asia/Tokyo 0 0 * * *", "0 0 * * ?",
		// Rare but not never: a 29th of February; a 31st in some month; a
		// 30th of February or a Monday (either day field matches).
		"0 0 29 2 *", "0 0 31 2,4,5 *", "0 0 30 2 1", "0 0 * 2 1",
	} {
		if _, err := ParseCron(expr); err != nil {
			t.Errorf("ParseCron(%q): %v", expr, err)
		}
	}
	for _, tc := range []struct{ expr, err string }{
		{"", `"" is not a five-field cron expression: empty spec string`},
		{"* * * *", `"* * * *" is not a five-field cron expression: expected exactly 5 fields, found 4: [* * * *]`},
		{"0 0 0 * * *", `"0 0 0 * * *" is not a five-field cron expression: expected exactly 5 fields, found 6: [0 0 0 * * *]`},
		{"0 24 * * *", `"0 24 * * *" is not a five-field cron expression: end of range (24) above maximum (23): 24`},
		{"0 0 0 * *", `"0 0 0 * *" is not a five-field cron expression: beginning of range (0) below minimum (1): 0`},
		{"0 0 * 13 *", `"0 0 * 13 *" is not a five-field cron expression: end of range (13) above maximum (12): 13`},
		{"5-1 * * * *", `"5-1 * * * *" is not a five-field cron expression: beginning of range (5) beyond end of range (1): 5-1`},
		{"x * * * *", `"x * * * *" is not a five-field cron expression: failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax`},
		{"@every x", `"@every x" is not a five-field cron expression: give the five fields (minute hour day-of-month month day-of-week), such as "*/15 * * * *" for every 15 minutes`},
		{"@every 90m", `"@every 90m" is not a five-field cron expression: give the five fields (minute hour day-of-month month day-of-week), such as "*/15 * * * *" for every 15 minutes`},
		{"@hourly", `"@hourly" is not a five-field cron expression: give the five fields (minute hour day-of-month month day-of-week); @hourly is "0 * * * *"`},
		{"@daily", `"@daily" is not a five-field cron expression: give the five fields (minute hour day-of-month month day-of-week); @daily is "0 0 * * *"`},
		{"CRON_TZ=Europe/Paris @weekly", `"CRON_TZ=Europe/Paris @weekly" is not a five-field cron expression: give the five fields (minute hour day-of-month month day-of-week); @weekly is "0 0 * * 0"`},
		{"0 0 30 2 *", `"0 0 30 2 *" never fires: none of its months has one of its days of the month`},
		{"0 0 31 4,6,9,11 *", `"0 0 31 4,6,9,11 *" never fires: none of its months has one of its days of the month`},
		{"CRON_TZ=UTC 0 0 30-31 FEB ?", `"CRON_TZ=UTC 0 0 30-31 FEB ?" never fires: none of its months has one of its days of the month`},
		{"CRON_TZ=Mars/Base 0 0 * * *", `"CRON_TZ=Mars/Base 0 0 * * *" is not a five-field cron expression: provided bad location Mars/Base: unknown time zone Mars/Base`},
		{"CRON_TZ=../../etc/passwd 0 0 * * *", `"CRON_TZ=../../etc/passwd 0 0 * * *" is not a five-field cron expression: provided bad location ../../etc/passwd: time: invalid location name`},
	} {
		s, err := ParseCron(tc.expr)
		if err == nil || err.Error() != tc.err {
			t.Errorf("ParseCron(%q) = %v, want error %q", tc.expr, err, tc.err)
		}
		if s != nil {
			t.Errorf("ParseCron(%q): a schedule with the error", tc.expr)
		}
	}
}

// TestParseCronZoneWithoutFields checks that a zone with nothing after it
// is refused, not a panic (the cron library slices past the end).
func TestParseCronZoneWithoutFields(t *testing.T) {
	for _, expr := range []string{"TZ=UTC", "CRON_TZ=Europe/Paris", "TZ=", "CRON_TZ=UTC\t0 0 * * *"} {
		s, err := ParseCron(expr)
		if err == nil {
			t.Errorf("ParseCron(%q) = %v, want an error", expr, s)
		}
	}
}
