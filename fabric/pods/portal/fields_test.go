package portal_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// fieldCase is a widget field of SPEC 2.4 and how to see it drawn: the
// same probe (a JavaScript expression over the widget's element, w)
// gives another answer on the widget with the field than on the one
// without.
type fieldCase struct {
	field string
	// base is the widget without the field (its type, stream and the
	// fields the case needs besides); with adds or changes fields.
	base, with map[string]any
	// probe reads what is drawn; want is its answer with the field
	// ("" : any answer but the base's).
	probe, want string
}

// chartBase is a shaded chart of stream m with its time column.
func chartBase(extra map[string]any) map[string]any {
	m := map[string]any{"widget_type": "shaded_chart", "title": "t", "stream": "m", "ts_column": "ts", "value_column": "value"}
	maps.Copy(m, extra)
	return m
}

const (
	probeAttr = `w.getAttribute(%q) || ""`
)

func attrProbe(name string) string { return fmt.Sprintf(probeAttr, name) }

func fieldCases(now time.Time) []fieldCase {
	marker := []map[string]any{{"message": "change window", "color": "orange", "timestamp": now.Add(-30 * time.Minute).Unix()}}
	bounds := map[string]any{"upperBound_column": "upper", "lowerBound_column": "lower"}
	return []fieldCase{
		{field: "widget_type", base: chartBase(bounds), with: map[string]any{"widget_type": "line_chart", "columns": []string{"value"}},
			probe: `String(w.querySelectorAll("path.band").length)`, want: "0"},
		{field: "title", base: chartBase(nil), with: map[string]any{"title": "Round-trip time"},
			probe: `w.querySelector("h3").textContent`, want: "Round-trip time"},
		{field: "stream", base: map[string]any{"widget_type": "shaded_chart", "ts_column": "ts", "value_column": "value"}, with: map[string]any{"stream": "m"},
			probe: attrProbe("data-total"), want: "40"},
		{field: "ts_column", base: map[string]any{"widget_type": "shaded_chart", "stream": "m", "value_column": "value", "duration_hours": 1}, with: map[string]any{"ts_column": "ts"},
			probe: attrProbe("data-x") + ` + " " + w.getAttribute("data-total")`},
		{field: "baseline_column", base: chartBase(nil), with: map[string]any{"baseline_column": "baseline"},
			probe: attrProbe("data-series"), want: "value baseline"},
		{field: "anomalies_column", base: chartBase(nil), with: map[string]any{"anomalies_column": "anomaly"},
			probe: `String(w.querySelectorAll("circle.anomaly").length)`, want: "4"},
		{field: "predicted_column", base: chartBase(nil), with: map[string]any{"predicted_column": "predicted"},
			probe: attrProbe("data-series"), want: "value predicted"},
		{field: "upperBound_column", base: chartBase(nil), with: map[string]any{"upperBound_column": "upper"},
			probe: attrProbe("data-series"), want: "value upper"},
		{field: "lowerBound_column", base: chartBase(nil), with: map[string]any{"lowerBound_column": "lower"},
			probe: attrProbe("data-series"), want: "value lower"},
		{field: "upperBound_column+lowerBound_column", base: chartBase(nil), with: bounds,
			probe: `w.getAttribute("data-band") + " " + (w.querySelector("path.band") ? w.querySelector("path.band").getAttribute("data-points") : "none")`, want: "1 40"},
		{field: "duration_hours", base: chartBase(nil), with: map[string]any{"duration_hours": 1},
			probe: attrProbe("data-total"), want: "13"},
		{field: "synchronized-group", base: chartBase(nil), with: map[string]any{"synchronized-group": 3},
			probe: attrProbe("data-sync-group"), want: "3"},
		{field: "markers-def", base: chartBase(nil), with: map[string]any{"markers-def": marker},
			probe: `Array.from(w.querySelectorAll("g.marker")).map(function(g){return g.getAttribute("data-message")+"/"+g.querySelector("line").getAttribute("stroke")}).join(",")`, want: "change window/orange"},
		{field: "show-markers", base: chartBase(map[string]any{"markers-def": marker}), with: map[string]any{"show-markers": false},
			probe: attrProbe("data-markers"), want: "0"},
		{field: "downsample", base: chartBase(map[string]any{"downsample-to-percent": 25}), with: map[string]any{"downsample": true},
			probe: attrProbe("data-points"), want: "10"},
		{field: "downsample-to-percent", base: chartBase(map[string]any{"downsample": true}), with: map[string]any{"downsample-to-percent": 25},
			probe: `w.getAttribute("data-points") + " of " + w.getAttribute("data-total") + " " + w.querySelector("path.series").getAttribute("data-points")`, want: "10 of 40 10"},
		{field: "downsample-limit-rows", base: chartBase(map[string]any{"downsample": true}), with: map[string]any{"downsample-limit-rows": 7},
			probe: attrProbe("data-points"), want: "7"},
		{field: "widget_id", base: chartBase(nil), with: map[string]any{"widget_id": "rtt"},
			probe: `w.id`, want: "widget-rtt"},
	}
}

// TestBrowserWidgetFields: each widget field of SPEC 2.4 changes what
// the portal draws. One dashboard holds, per field, the widget without
// it and the widget with it, over the same 40 records of the last three
// hours.
func TestBrowserWidgetFields(t *testing.T) {
	f := startFabric(t)
	base := f.Configs["a"].Portal.URL
	a := connect(t, f.Configs["a"])
	a.addStream(t, "m")
	now := time.Now()
	// The last record two minutes ago: no record sits on a window's edge.
	a.write(t, "m", metrics(40, 3, now.Add(-2*time.Minute)))
	cases := fieldCases(now)
	var ws []map[string]any
	for _, c := range cases {
		with := maps.Clone(c.base)
		maps.Copy(with, c.with)
		ws = append(ws, c.base, with)
	}
	doc, _ := json.Marshal(map[string]any{"name": "fields", "dashboard_sections": []any{map[string]any{"title": "all", "widgets": ws}}})
	a.addDashboard(t, string(doc))

	ctx := browser(t)
	login(t, ctx, base, f.Configs["a"])
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/d/fields")); err != nil {
		t.Fatal(err)
	}
	// Every widget with a stream has drawn a view of the records: its
	// first view may come before the stream's records are read (an empty
	// one), so the wait is for records, not for a view.
	waitFor(t, ctx, "every widget's view of the records", `Array.from(document.querySelectorAll(".widget")).every(function(w){return Number(w.getAttribute("data-total")) > 0 || w.getAttribute("data-widget") === "4"})`)
	for i, c := range cases {
		t.Run(c.field, func(t *testing.T) {
			probe := func(k int) string {
				expr := fmt.Sprintf(`(function(){var w=document.querySelector('.widget[data-widget="%d"]');return %s})()`, k, c.probe)
				out, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
				if err != nil {
					t.Fatalf("probe %s: %v", c.probe, err)
				}
				return out
			}
			without, with := probe(2*i), probe(2*i+1)
			if without == with {
				t.Errorf("%s draws the same with and without it: %q", c.field, with)
			}
			if c.want != "" && with != c.want {
				t.Errorf("%s: with it %q, want %q (without: %q)", c.field, with, c.want, without)
			}
			if c.want == "" {
				t.Logf("%s: without %q, with %q", c.field, without, with)
			}
		})
	}
	if t.Failed() {
		html, _ := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("#dashboard")))
		t.Logf("page:\n%.4000s", strings.ReplaceAll(html, "><", ">\n<"))
	}
}

// TestBrowserSynchronizedCursor: moving the pointer over a chart shows
// the cursor at that time on every chart of its synchronized-group, and
// on no other chart.
func TestBrowserSynchronizedCursor(t *testing.T) {
	f := startFabric(t)
	base := f.Configs["a"].Portal.URL
	a := connect(t, f.Configs["a"])
	a.addStream(t, "m")
	a.write(t, "m", metrics(20, 1, time.Now().Add(-time.Minute)))
	a.addDashboard(t, `name: sync
dashboard_sections:
  - widgets:
      - {widget_type: shaded_chart, stream: m, ts_column: ts, value_column: value, synchronized-group: 1, widget_id: one}
      - {widget_type: shaded_chart, stream: m, ts_column: ts, baseline_column: baseline, synchronized-group: 1, widget_id: two}
      - {widget_type: shaded_chart, stream: m, ts_column: ts, value_column: value, synchronized-group: 2, widget_id: other}
      - {widget_type: shaded_chart, stream: m, ts_column: ts, value_column: value, widget_id: alone}
`)
	ctx := browser(t)
	login(t, ctx, base, f.Configs["a"])
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/d/sync")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the charts' views", `Array.from(document.querySelectorAll(".widget")).every(function(w){return w.getAttribute("data-points") === "20"})`)
	cursors := func() string {
		out, err := chromedp.Run(ctx, chromedp.Evaluate[string](`["one","two","other","alone"].map(function(id){var w=document.getElementById("widget-"+id);return id+"="+(w.getAttribute("data-cursor")?"on":"off")}).join(" ")`))
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := cursors(); got != "one=off two=off other=off alone=off" {
		t.Fatalf("cursors before any pointer: %s", got)
	}
	move := `(function(){var s=document.querySelector("#widget-one svg.chart");var r=s.getBoundingClientRect();
		s.dispatchEvent(new MouseEvent("mousemove",{clientX:r.left+r.width/2,clientY:r.top+r.height/2,bubbles:true}));return ""})()`
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[string](move)); err != nil {
		t.Fatal(err)
	}
	if got := cursors(); got != "one=on two=on other=off alone=off" {
		t.Errorf("cursors with the pointer over chart one: %s", got)
	}
	one, two := attr(t, ctx, "#widget-one", "data-cursor"), attr(t, ctx, "#widget-two", "data-cursor")
	if one != two {
		t.Errorf("the group's cursors at %s and %s: want one time", one, two)
	}
}
