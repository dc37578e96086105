package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
)

// TestOutputDashboardApps: verify finds a widget's dataset and names its
// missing columns (and a stream that is not there); convert rewrites the
// dashboards written as YAML, once; to-app makes one page per section,
// refuses an app and a taken page name, and verify then reads the pages;
// a page is not deleted on its own, and deleting the app deletes them.
func TestOutputDashboardApps(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	// Kept edits land in TMPDIR, with a random part the transcripts hide.
	t.Setenv("TMPDIR", t.TempDir())
	kept := regexp.MustCompile(`edit-flat-\d+\.yaml`)
	s := newSession(t, "dashboard-verify", "dashboard-convert", "dashboard-to-app", "dashboard-live-edit")
	s.normalize = func(_, errOut string) string { return kept.ReplaceAllString(errOut, "edit-flat-N.yaml") }
	dir := s.vars["DIR"]
	write(t, dir, "web.csv", "ts,base,host\n1,2,a\n")
	write(t, dir, "ops.yaml", `name: ops
label: Operations
dashboard_style: tabbed
dashboard_filters:
  time_filter: true
dashboard_sections:
  - title: Traffic
    widgets:
      - widget_type: shaded_chart
        title: Requests
        stream: web
        ts_column: ts
        baseline_column: base
        predicted_column: predicted
  - title: Alarms
    widgets:
      - widget_type: table
        title: Open alarms
        stream: alarms
        columns: [id, severity]
      - widget_type: label
        title: Notes
`)
	write(t, dir, "flat.json", `{"name": "flat", "label": "No sections"}`)
	write(t, dir, "taken.yaml", "name: board_page1\n")
	write(t, dir, "board.yaml", "name: board\ndashboard_sections:\n  - title: One\n    widgets: []\n")
	s.steps(
		step{cmd: "dataset add --name web --file $DIR/web.csv", setup: true},
		step{cmd: "dashboard convert"},
		step{cmd: "dashboard add --file $DIR/ops.yaml", setup: true},
		step{cmd: "dashboard add --file $DIR/flat.json", setup: true},
		step{cmd: "dashboard verify --name ops"},
		step{cmd: "dashboard verify --name nope", code: 1},
		step{cmd: "dashboard convert"},
		step{cmd: "dashboard convert"},
		step{cmd: "dashboard to-app --name ops"},
		step{cmd: "dashboard to-app --name ops", code: 1},
		step{cmd: "dashboard to-app --name flat", code: 1},
		step{cmd: "dashboard to-app --name nope", code: 1},
		step{cmd: "dashboard add --file $DIR/taken.yaml", setup: true},
		step{cmd: "dashboard add --file $DIR/board.yaml", setup: true},
		step{cmd: "dashboard to-app --name board", code: 1},
		step{cmd: "dashboard verify --name ops"},

		// live-edit, with editors that edit and leave at once.
		step{cmd: "dashboard add --file $DIR/flat.json --overwrite", setup: true},
		step{cmd: "dashboard live-edit --name flat --editor true"},
		step{cmd: `dashboard live-edit --name flat --editor "sed -i 's/label: No sections/label: Edited/'"`},
		step{cmd: `dashboard live-edit --name flat --editor "sed -i 's/label: Edited/debug: 7/'"`, code: 1},
		step{cmd: `dashboard live-edit --name flat --editor "sed -i 's/name: flat/name: other/'"`, code: 1},
		step{cmd: "dashboard live-edit --name flat --editor false", code: 1},
		step{cmd: "dashboard live-edit --name nope --editor true", code: 1},
		step{cmd: "dashboard get --name flat", setup: true},
	)
	if out := s.setup("", "dashboard get --name flat"); !strings.Contains(out, "label: Edited") {
		t.Errorf("the edit was not stored:\n%s", out)
	}
	// A page goes with its app, not alone.
	if _, errOut, code := run(t, "", "dashboard", "delete", "--name", "ops_page1"); code != 1 {
		t.Fatalf("deleting a page of an app: exit %d, %s", code, errOut)
	}
	s.setup("", "dashboard delete --name ops")
	if _, _, code := run(t, "", "dashboard", "get", "--name", "ops_page2"); code != 1 {
		t.Fatal("the app's page outlived it")
	}
	s.unreachable("dashboard verify --name ops", "dashboard convert", "dashboard to-app --name ops", "dashboard live-edit --name ops --editor true")
}

// TestOutputDashboardOpen: open prints the portal's URL of a dashboard
// (and starts the --browser given on it); an unknown dashboard, and a
// fabric whose configuration names no portal, fail.
func TestOutputDashboardOpen(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer, api.Portal}})
	t.Setenv("BROWSER", "")
	s := newSession(t, "dashboard-open")
	s.sc.Literal(f.Configs["a"].Portal.URL, "http://127.0.0.1:PORT")
	dir := s.vars["DIR"]
	write(t, dir, "ops.yaml", "name: ops\nlabel: Operations\n")
	write(t, dir, "noportal.json", `{"tenant": "a", "nats": {"urls": ["`+f.Server.URL()+`"], "user": "a", "password": "`+f.Configs["a"].NATS.Password+`"}}`)
	s.steps(
		step{cmd: "dashboard add --file $DIR/ops.yaml", setup: true},
		step{cmd: "dashboard open --name ops"},
		step{cmd: "dashboard open --name ops --browser 'touch $DIR/out/opened'"},
		step{cmd: "dashboard open --name nope", code: 1},
		step{cmd: "dashboard open", code: 2},
	)
	// The browser is not waited for: it has a moment to start.
	opened := filepath.Join(dir, "out", "opened")
	for i := 0; ; i++ {
		if _, err := os.Stat(opened); err == nil {
			break
		} else if i == 50 {
			t.Fatalf("--browser was not started on the URL: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.withNetworkConfig(filepath.Join(dir, "noportal.json"), func() { s.run(1, "", "dashboard open --name ops") })
	s.unreachable("dashboard open --name ops")
}
