package cli

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"golang.org/x/net/html"
)

// packDir writes the example pack examples/packs/netops as a .tar.gz at
// dir/name, with edit applied to each file's text (by path).
func packDir(t *testing.T, dir, name string, edit func(path, text string) string, extra ...tarFile) string {
	t.Helper()
	root := filepath.Join("..", "examples", "packs", "netops")
	var files []tarFile
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		text := string(data)
		if edit != nil {
			text = edit(filepath.ToSlash(rel), text)
		}
		if text != "" {
			files = append(files, tarFile{name: filepath.ToSlash(rel), body: text})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return writeBundle(t, dir, name, append(files, extra...)...)
}

// tenantSnapshot is what a tenant has, as its list commands show it:
// every kind a pack deploys (the system streams' counters left out).
func tenantSnapshot(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, line := range []string{"pipeline list --json", "dashboard list --json", "dashgroup list --json", "deployment status --json",
		"schedule list --json", "alert-rules list --json", "secret list --json", "dataset list --json", "event-endpoint list --json", "pstream list --json", "bot-package list --json"} {
		out, errOut, code := run(t, "", strings.Fields(line)...)
		if code != 0 {
			t.Fatalf("client %s: exit %d %s", line, code, errOut)
		}
		if strings.HasPrefix(line, "pstream") {
			var rows []map[string]any
			if err := json.Unmarshal([]byte(out), &rows); err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, r := range rows {
				names = append(names, r["name"].(string))
			}
			out = strings.Join(names, ",")
		}
		b.WriteString(line + "\n" + out + "\n")
	}
	return b.String()
}

// wellFormed checks that an HTML page's elements are closed in order
// (void elements aside) and that it has a body with the report.
func wellFormed(t *testing.T, page []byte) {
	t.Helper()
	void := map[string]bool{"meta": true, "br": true, "hr": true, "img": true, "link": true, "input": true, "col": true, "wbr": true}
	z := html.NewTokenizer(bytes.NewReader(page))
	var open []string
	for {
		switch z.Next() {
		case html.ErrorToken:
			if z.Err() != io.EOF {
				t.Fatalf("report.html: %v", z.Err())
			}
			if len(open) != 0 {
				t.Fatalf("report.html: %v left open", open)
			}
			return
		case html.StartTagToken:
			name, _ := z.TagName()
			if !void[string(name)] {
				open = append(open, string(name))
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			if len(open) == 0 || open[len(open)-1] != string(name) {
				t.Fatalf("report.html: </%s> closes %v", name, open)
			}
			open = open[:len(open)-1]
		}
	}
}

// untar returns the files of a .tar.gz by name.
func untar(t *testing.T, path string) map[string][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	out := map[string][]byte{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(tr)
		out[h.Name] = data
	}
}

// TestOutputPacks: the example pack uploaded, activated (a secret
// reference among its inputs), enabled for two customers and for
// single-tenant use, compared with a changed version (counts, rows, the
// HTML report; a changed bot module shows), then taken back scope by
// scope and removed: the tenant, its bot packages too, is exactly as
// before. Bad input gets one line and its exit code.
func TestOutputPacks(t *testing.T) {
	// With a portal: compare --html stores its page there and prints its URL.
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer, api.Worker, api.Portal}})
	s := newSession(t, "pack-upload", "pack-list", "pack-activate", "pack-enable-customer", "pack-enable-single-tenant",
		"pack-compare", "pack-deactivate", "pack-disable-customer", "pack-disable-single-tenant", "pack-remove")
	s.sc.Literal(f.Configs["a"].Portal.URL, "http://127.0.0.1:PORT")
	reportName := regexp.MustCompile(`/reports/\d{8}T\d{6}\.\d{9}Z-`)
	s.normalize = func(_, errOut string) string { return reportName.ReplaceAllString(errOut, "/reports/TIME-") }
	dir := s.vars["DIR"]
	packDir(t, dir, "netops-1.0.0.tar.gz", nil)
	packDir(t, dir, "netops-1.1.0.tar.gz", func(path, text string) string {
		switch path {
		case "manifest.yaml":
			text = strings.Replace(text, "version: 1.0.0", "version: 1.1.0", 1)
			text = strings.Replace(text, "  alert_ruleset:\n    - {name: netops-rules, file: alerts/rules.yaml}\n", "", 1)
			return strings.Replace(text, "  schedule:\n", "  schedule:\n    - {name: netops-nightly, file: schedules/nightly.yaml}\n", 1)
		case "dashboards/overview.yaml":
			return strings.Replace(text, "Network overview", "Network at a glance", 1)
		case "dashboards/customer.yaml":
			return strings.Replace(text, "widget_type: table", "widget_type: timeseries", 1)
		case "bot_packages/netops-tools/tools.star":
			return strings.Replace(text, `else "busy"`, `else "normal"`, 1)
		case "alerts/rules.yaml":
			return ""
		}
		return text
	}, tarFile{name: "schedules/nightly.yaml", body: "name: netops-nightly\npipeline: netops-hot-hosts\ncron_expression: \"0 2 * * *\"\nstatus: paused\n"})
	writeBundle(t, dir, "nomanifest.tar.gz", tarFile{name: "dashboards/x.yaml", body: "name: x\n"})
	write(t, dir, "plain.tar.gz", "not a pack\n")
	writeBundle(t, dir, "big.tar.gz", tarFile{name: "manifest.yaml", body: "name: big\nversion: 1.0.0\nartifacts:\n  dashboard:\n    - {name: big, file: big.yaml}\n"},
		tarFile{name: "big.yaml", size: 16<<20 + 1})
	s.setup("s3cret", "secret add --name snmp-comm")
	before := tenantSnapshot(t)

	s.steps(
		step{cmd: "pack upload --file $DIR/netops-1.0.0.tar.gz"},
		step{cmd: "pack upload --file $DIR/netops-1.0.0.tar.gz", code: 1},
		step{cmd: "pack upload --file $DIR/nomanifest.tar.gz", code: 1},
		step{cmd: "pack upload --file $DIR/plain.tar.gz", code: 1},
		step{cmd: "pack upload --file $DIR/big.tar.gz", code: 1},
		step{cmd: "pack upload --file $DIR/missing.tar.gz", code: 1},
		step{cmd: "pack upload", code: 2},
		step{cmd: "pack list"},
		step{cmd: "pack list --name", code: 2},
		step{cmd: "pack enable-single-tenant --name netops --version 1.0.0", code: 1},
		step{cmd: "pack activate --name netops --version 1.0.0", code: 1},
		step{cmd: "pack activate --name netops --version 1.0.0 --inputs '{\"snmp_community\": '", code: 2},
		step{cmd: "pack activate --name netops --version 1.0.0 --inputs '{\"snmp_comunity\": \"x\"}'", code: 1},
		step{cmd: "pack activate --name netops --version 9.9.9", code: 1},
		step{cmd: "pack activate --name netops --version 1.0.0 --inputs '{\"snmp_community\": {\"$secret\": \"snmp-comm\"}}'"},
		step{cmd: "pack activate --name netops --version 1.0.0 --inputs '{\"snmp_community\": \"x\"}'", code: 1},
		step{cmd: "pack enable-customer --name netops --version 1.0.0 --customer-tag acme --inputs '{\"customer_name\": \"Acme\"}'"},
		step{cmd: "pack enable-customer --name netops --version 1.0.0 --customer-tag globex --inputs '{\"customer_name\": \"Globex\"}' --json"},
		step{cmd: "pack enable-customer --name netops --version 1.0.0 --customer-tag initech", code: 1},
		step{cmd: "pack enable-single-tenant --name netops --version 1.0.0"},
		step{cmd: "pack list --json"},
		step{cmd: "pack upload --file $DIR/netops-1.1.0.tar.gz"},
		step{cmd: "pack compare --pack_name netops --pack_version 1.0.0"},
		step{cmd: "pack compare --pack_name netops --pack_version 1.0.0 --json"},
		step{cmd: "pack compare --pack_name netops --pack_version 1.1.0 --with pack --other_pack_name netops --other_pack_version 1.0.0 --deploy_type customer --customer_tag acme --customer_vars '{\"customer_name\": \"Acme\"}' --other_pack_customer_vars '{\"customer_name\": \"Acme\"}' --output $DIR/out/report.tar.gz --html"},
		step{cmd: "pack compare --pack_name netops --pack_version 1.1.0 --html", code: 2},
		step{cmd: "pack compare --pack_name netops --pack_version 1.1.0 --deploy_type customer", code: 2},
		step{cmd: "pack compare --pack_name netops --pack_version 1.1.0 --with pack", code: 2},
		step{cmd: "pack remove --name netops --version 1.0.0", code: 1},
		step{cmd: "pack deactivate --name netops --version 1.0.0", code: 1},
		step{cmd: "pack disable-customer --name netops --version 1.0.0 --customer-tag acme"},
		step{cmd: "pack disable-customer --name netops --version 1.0.0 --customer-tag acme", code: 1},
		step{cmd: "pack disable-customer --name netops --version 1.0.0 --customer-tag globex"},
		step{cmd: "pack disable-single-tenant --name netops --version 1.0.0"},
		step{cmd: "pack disable-single-tenant --name netops --version 1.0.0", code: 1},
		step{cmd: "pack deactivate --name netops --version 1.0.0"},
		step{cmd: "pack deactivate --name netops --version 1.0.0", code: 1},
		step{cmd: "pack remove --name netops --version 1.1.0"},
		step{cmd: "pack remove --name netops"},
		step{cmd: "pack remove --name netops", code: 1},
		step{cmd: "pack list"},
	)
	if after := tenantSnapshot(t); after != before {
		t.Errorf("the tenant after the pack was taken back:\n%s\nbefore:\n%s", after, before)
	}

	// The report: counts by kind of change, and a well-formed page.
	files := untar(t, filepath.Join(dir, "out", "report.tar.gz"))
	var names []string
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	if !slices.Equal(names, []string{"report.html", "report.json"}) {
		t.Fatalf("the report holds %v", names)
	}
	var report struct {
		Summary struct {
			Counts map[string]struct {
				Count  int            `json:"count"`
				ByType map[string]int `json:"by_type"`
			} `json:"counts"`
			TotalCount int `json:"total_count"`
		} `json:"summary"`
		Rows []map[string]string `json:"compare_rows"`
	}
	if err := json.Unmarshal(files["report.json"], &report); err != nil {
		t.Fatal(err)
	}
	c := report.Summary.Counts
	if c["only_in_left"].Count != 1 || c["only_in_right"].Count != 1 || c["changed"].Count != 3 || c["unchanged"].Count != 7 ||
		c["only_in_left"].ByType["schedule"] != 1 || c["only_in_right"].ByType["alert_ruleset"] != 1 || c["changed"].ByType["dashboard"] != 2 ||
		c["changed"].ByType["bot_package"] != 1 || report.Summary.TotalCount != 12 || len(report.Rows) != 12 {
		t.Errorf("report counts %+v, total %d, %d rows", c, report.Summary.TotalCount, len(report.Rows))
	}
	wellFormed(t, files["report.html"])
	if !bytes.Contains(files["report.html"], []byte("Network at a glance")) {
		t.Errorf("report.html does not show the changed dashboard's text")
	}
	if !bytes.Contains(files["report.html"], []byte("=== tools.star ===")) || !bytes.Contains(files["report.html"], []byte("normal")) {
		t.Errorf("report.html does not show the changed bot module's text")
	}
	s.check()
}

// TestOutputPackCreate: pack create in tenant a, then pack upload and
// pack activate in tenant b, give b the same artifacts: demo diff of
// the two tenants' backups finds no difference, and b lists the same
// streams, secrets and bot packages (the secret's value asked for at
// activation).
// Bad input: an unknown type or name in --artifact_config, a name and
// version the catalogue has, a file there already.
func TestOutputPackCreate(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Tenants: []string{"a", "b"}, Pods: []string{api.APIServer, api.Worker}})
	s := newSession(t, "pack-create")
	dir := s.vars["DIR"]
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	write(t, dir, "hosts.pipeline", "@dm:empty\n  --> @dm:addrow host = 'web-1'\n")
	write(t, dir, "ops.yaml", "name: ops\nlabel: Operations\ndashboard_sections:\n  - title: Hosts\n    widgets:\n      - {widget_type: table, stream: events}\n")
	write(t, dir, "group.json", `{"name": "ops-group", "dashboardList": [{"name": "ops"}]}`)
	write(t, dir, "svc.yaml", "id: svc\nname: Service\nenabled: false\nservice_pipelines:\n  - {name: hosts, label: hosts}\n")
	for _, line := range []string{"pipeline add --file $DIR/hosts.pipeline", "dashboard add --file $DIR/ops.yaml", "dashgroup add --file $DIR/group.json",
		"deployment add --file $DIR/svc.yaml", "pstream add --name events --retention-hours 48"} {
		s.setup("", s.expand(line))
	}
	s.setup("", "bot-package add --dir "+filepath.Join(wd, "..", "examples", "packs", "netops", "bot_packages", "netops-tools"))
	s.setup("hunter2", "secret add --name db-password")
	s.steps(
		step{cmd: "pack create --name tenant-a --version 1.0.0 --artifact_config '{\"artifact\": {\"widget\": {\"backup_all\": true}}}'", code: 1},
		step{cmd: "pack create --name tenant-a --version 1.0.0 --artifact_config '{\"default_artifact_type_backup\": false, \"artifact\": {\"dashboard\": {\"artifacts\": [\"nope\"]}}}'", code: 1},
		step{cmd: "pack create --name tenant-a --version 1.0.0 --artifact_config '{\"default_artifact_type_backup\": false, \"artifact\": {\"dashboard\": {\"artifacts\": [\"ops\"]}}}'"},
		step{cmd: "pack create --name tenant-a --version 1.0.0", code: 1},
		step{do: func() { os.Remove(filepath.Join(dir, "tenant-a-1.0.0.tar.gz")) }},
		step{cmd: "pack create --name tenant-a --version 1.0.0 --upload"},
		step{cmd: "pack create --name tenant-a --version 1.0.0", code: 1},
	)
	files := untar(t, filepath.Join(dir, "tenant-a-1.0.0.tar.gz"))
	if strings.Contains(string(files["credentials/db-password.yaml"]), "hunter2") {
		t.Fatal("pack create wrote a secret's value")
	}
	if _, ok := files["bot_packages/netops-tools/tools.star"]; !ok {
		t.Fatal("pack create did not pack the bot package's folder")
	}
	s.setup("", "demo backup --to_dir "+filepath.Join(dir, "backup-a"))
	lists := func() string {
		var b strings.Builder
		for _, line := range []string{"secret list --json", "pstream list --json", "pipeline list --json", "deployment status --json", "bot-package list --json"} {
			out, _, code := run(t, "", strings.Fields(line)...)
			if code != 0 {
				t.Fatalf("%s: exit %d", line, code)
			}
			var rows []map[string]any
			_ = json.Unmarshal([]byte(out), &rows)
			for _, r := range rows {
				if r["system"] == true {
					continue
				}
				fmt.Fprintf(&b, "%s %v %v %v\n", strings.Fields(line)[0], r["name"], r["enabled"], r["version"])
			}
		}
		return b.String()
	}
	inA := lists()
	s.withNetworkConfig(f.ConfigPath("b"), func() {
		s.setup("", s.expand("pack upload --file $DIR/tenant-a-1.0.0.tar.gz"))
		if _, errOut, code := run(t, "", "pack", "activate", "--name", "tenant-a", "--version", "1.0.0"); code != 1 ||
			errOut != "error: pack activate: missing deploy variable(s) for scope common: db_password_value (give them in --inputs)\n" {
			t.Errorf("activation without the secret's value: exit %d %s", code, errOut)
		}
		s.setup("", `pack activate --name tenant-a --version 1.0.0 --inputs '{"db_password_value": "hunter2"}'`)
		s.setup("", "demo backup --to_dir "+filepath.Join(dir, "backup-b"))
		if inB := lists(); inB != inA {
			t.Errorf("tenant b has\n%s\ntenant a\n%s", inB, inA)
		}
	})
	s.steps(step{cmd: "demo diff --first $DIR/backup-a --second $DIR/backup-b --no_ident", setup: true})
	out, _, _ := run(t, "", "demo", "diff", "--first", filepath.Join(dir, "backup-a"), "--second", filepath.Join(dir, "backup-b"), "--no_ident")
	if !strings.HasSuffix(out, " Identical, 0 Only In First, 0 Only In Second, 0 Differ\n") || strings.HasPrefix(out, "0 Identical") {
		t.Errorf("demo diff of the two tenants' backups:\n%s", out)
	}
	t.Chdir(wd) // the golden files are the package's
	s.check()
}
