package portal_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/dashboards"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/fabricops/fabric/fabric/infra/tenant/tables"
	"github.com/fabricops/fabric/fabric/lib/frame"
)

// eval runs a JavaScript expression in the page and returns its text.
func eval(t *testing.T, ctx context.Context, expr string) string {
	t.Helper()
	out, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(function(){return String(`+expr+`)})()`))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return out
}

// TestBrowserDashboardFields: the dashboard's own fields (SPEC 2.4)
// change what is drawn: label, description, enabled, dashboard_style
// (tabs), debug, saved_time, each filter of dashboard_filters (the
// sections with show_filter false ignore them), and the table, counter,
// line and bar widgets draw their streams; a dashboard without them
// draws none of it. The list shows the dashboard groups (SPEC 2.5) and an
// app shows its pages as navigation.
func TestBrowserDashboardFields(t *testing.T) {
	f := startFabric(t)
	base := f.Configs["a"].Portal.URL
	a := connect(t, f.Configs["a"])
	a.addStream(t, "m")
	a.write(t, "m", metrics(40, 3, time.Now().Add(-2*time.Minute)))
	a.addDashboard(t, `name: board
label: Board label
description: Board description
enabled: false
dashboard_style: tabbed
dashboard_filters: {time_filter: true, columns_filter: [site], group_filters: [site]}
debug: true
dashboard_sections:
  - title: One
    show_filter: true
    widgets:
      - {widget_type: counter, title: filtered, stream: m, ts_column: ts, widget_id: filtered}
      - {widget_type: table, stream: m, columns: [site, value], widget_id: tbl}
      - {widget_type: bar_chart, stream: m, ts_column: ts, columns: [value], widget_id: bars}
  - title: Two
    show_filter: false
    widgets:
      - {widget_type: counter, stream: m, ts_column: ts, widget_id: unfiltered}
      - {widget_type: line_chart, stream: m, ts_column: ts, columns: [value, baseline], widget_id: lines}
      - {widget_type: counter, stream: m, column: value, widget_id: last}
`)
	src, err := frame.OpenReader(strings.NewReader("host,cpu\nedge-1,12.5\nedge-2,80\nedge-3,41\n"), frame.CSV, frame.NoCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := tables.New(tenant.New(a.nc)).AddDataset(context.Background(), "hosts", "", src, frame.CSV); err != nil {
		t.Fatal(err)
	}
	a.addDashboard(t, "name: plain\ndashboard_sections:\n  - title: Only\n    widgets:\n      - {widget_type: counter, stream: m, widget_id: c}\n      - {widget_type: table, stream: hosts, widget_id: hosts}\n      - {widget_type: bar_chart, stream: hosts, columns: [cpu], widget_id: cpu}\n")
	if _, err := a.repo.Add(context.Background(), artifact.DashGroup, []byte(`{"name": "noc", "label": "NOC screens", "users": "ops-team", "dashboardList": [{"id": "1", "name": "board"}]}`), false); err != nil {
		t.Fatal(err)
	}
	a.addDashboard(t, "name: suite\ndashboard_sections:\n  - title: First\n    widgets:\n      - {widget_type: counter, stream: m, widget_id: p1}\n  - title: Second\n    widgets:\n      - {widget_type: counter, stream: m, widget_id: p2}\n")
	if _, err := (&dashboards.Dashboards{Repo: a.repo, Data: tenant.New(a.nc)}).ToApp(context.Background(), "suite"); err != nil {
		t.Fatal(err)
	}

	ctx := browser(t)
	login(t, ctx, base, f.Configs["a"])
	if got := eval(t, ctx, `Array.from(document.querySelectorAll("section.group a.group-dashboard")).map(function(a){return a.textContent}).join(",") + " " + document.querySelector("section.group h2").textContent + " " + document.querySelector("section.group .users").textContent`); got != "board NOC screens Users: ops-team" {
		t.Errorf("the group's entry: %q", got)
	}
	if got := eval(t, ctx, `document.querySelector('tr.dashboard[data-name="board"]').getAttribute("data-enabled") + " " + document.querySelector('tr.dashboard[data-name="suite_page1"]').textContent.indexOf("page")`); !strings.HasPrefix(got, "false ") {
		t.Errorf("the list's board row: %q", got)
	}

	open := func(name string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Navigate(base+"/d/"+name)); err != nil {
			t.Fatal(err)
		}
		// Every widget reads records (stream m's 40, or a dataset's): a
		// stream's first view may come before they are read.
		waitFor(t, ctx, name+"'s widgets' views of their records", `Array.from(document.querySelectorAll(".widget")).every(function(w){return Number(w.getAttribute("data-total")) > 0})`)
	}
	open("plain")
	plain := eval(t, ctx, `[document.querySelector("#dash-title").textContent, !!document.querySelector("#dash-description"), !!document.querySelector("#dash-disabled"), !!document.querySelector("#tabs"), !!document.querySelector("#debug"), !!document.querySelector("#filters"), document.querySelector("#dashboard").getAttribute("data-style")].join("|")`)
	if plain != "plain|false|false|false|false|false|sections" {
		t.Errorf("the plain dashboard: %q", plain)
	}
	// Widgets over a dataset: every column of a table that names none.
	if got := eval(t, ctx, `[document.querySelector("#widget-hosts").getAttribute("data-source"), document.querySelector("#widget-hosts").getAttribute("data-rows"), document.querySelector("#widget-hosts").getAttribute("data-columns"), document.querySelectorAll("#widget-cpu rect.bar").length].join("|")`); got != "dataset|3|host cpu|3" {
		t.Errorf("the dataset's table and bars: %q", got)
	}
	open("board")
	board := eval(t, ctx, `[document.querySelector("#dash-title").textContent, document.querySelector("#dash-description").textContent, !!document.querySelector("#dash-disabled"), document.querySelectorAll("#tabs button.tab").length, !!document.querySelector("#debug"), !!document.querySelector("#time-filter"), document.querySelectorAll("input.column-filter").length, document.querySelectorAll("input.group-filter").length, document.querySelector("#dashboard").getAttribute("data-style"), !!document.querySelector("#saved-time")].join("|")`)
	if board != "Board label|Board description|true|2|true|true|1|1|tabbed|true" {
		t.Errorf("the board: %q", board)
	}
	// Tabs: one section shows at a time.
	if got := eval(t, ctx, `Array.from(document.querySelectorAll("section.section")).map(function(s){return s.hidden}).join(",")`); got != "false,true" {
		t.Errorf("tabs before a click: hidden %s", got)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#tabs button.tab[data-index="1"]`))); err != nil {
		t.Fatal(err)
	}
	if got := eval(t, ctx, `Array.from(document.querySelectorAll("section.section")).map(function(s){return s.hidden}).join(",")`); got != "true,false" {
		t.Errorf("tabs after clicking the second: hidden %s", got)
	}
	// The widgets of each kind.
	widgets := eval(t, ctx, `[document.querySelector("#widget-filtered").getAttribute("data-value"), document.querySelector("#widget-tbl").getAttribute("data-rows"), document.querySelector("#widget-tbl").getAttribute("data-columns"), document.querySelectorAll("#widget-bars rect.bar").length, document.querySelector("#widget-lines").getAttribute("data-series"), document.querySelector("#widget-last").getAttribute("data-value") !== ""].join("|")`)
	if widgets != "40|40|site value|40|value baseline|true" {
		t.Errorf("counter, table, bars, lines, last value: %q", widgets)
	}
	// Each filter narrows the filtered section's widgets, not the others.
	counts := func() string {
		return eval(t, ctx, `document.querySelector("#widget-filtered").getAttribute("data-value") + " " + document.querySelector("#widget-unfiltered").getAttribute("data-value")`)
	}
	set := func(sel, value, want string) {
		t.Helper()
		before := eval(t, ctx, `document.querySelector("#widget-filtered").getAttribute("data-updates")`)
		eval(t, ctx, fmt.Sprintf(`(function(){var e=document.querySelector(%q);e.value=%q;e.dispatchEvent(new Event("change"));return ""})()`, sel, value))
		waitFor(t, ctx, sel+" = "+value, fmt.Sprintf(`document.querySelector("#widget-filtered").getAttribute("data-updates") > %s && document.querySelector("#widget-filtered").getAttribute("data-value") === %q`, before, strings.Fields(want)[0]))
		if got := counts(); got != want {
			t.Errorf("%s = %q: filtered and unfiltered counters %q, want %q", sel, value, got, want)
		}
	}
	set("#time-filter", "1", "13 40")
	set("#time-filter", "", "40 40")
	set(`input.column-filter[data-column="site"]`, "PAR", "20 40")
	set(`input.column-filter[data-column="site"]`, "", "40 40")
	set(`input.group-filter[data-column="site"]`, "lyon", "20 40")
	set(`input.group-filter[data-column="site"]`, "ly", "0 40")

	// An app: its pages as navigation, each page drawn.
	open("suite")
	if got := eval(t, ctx, `Array.from(document.querySelectorAll("#app-pages a")).map(function(a){return a.textContent + (a.classList.contains("current") ? "*" : "")}).join(",") + " " + !!document.querySelector("#widget-p1")`); got != "First*,Second true" {
		t.Errorf("the app's first page: %q", got)
	}
	open("suite?page=2")
	if got := eval(t, ctx, `!!document.querySelector("#widget-p2") + " " + document.querySelector("#app-pages a.current").textContent`); got != "true Second" {
		t.Errorf("the app's second page: %q", got)
	}
}
