package builtins_test

// Golden transcripts of the builtins, module by module: each test function
// starts one fabric (newFixture) and runs its snippets in order, each on
// its own thread; the transcript shows each snippet, what it printed and,
// for the snippets that must fail, the error. Volatile values are scrubbed
// (fabrictest.Scrubber). go test ./builtins -run TestSnippets -update
// rewrites testdata/*.golden.

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/internal/testutil"
)

// snippet is one entry of a module's transcript.
type snippet struct {
	// src is the Starlark code; $NAME variables are expanded.
	src string
	// fails: the snippet must end in an error (shown as "error: ...").
	fails bool
	// capture stores the last line the snippet printed as the variable
	// capture (a job id, say), and names it <capture> in the transcript.
	capture string
	// do is a Go action between snippets (then src is empty).
	do func()
}

// snippetRun runs snippets against a fixture and keeps a transcript per
// golden file.
type snippetRun struct {
	t    *testing.T
	f    *fixture
	sc   *fabrictest.Scrubber
	vars map[string]string
}

func newSnippetRun(t *testing.T, f *fixture) *snippetRun {
	return &snippetRun{t: t, f: f, sc: fabrictest.NewScrubber(), vars: map[string]string{}}
}

// golden runs the snippets and compares their transcript with
// testdata/NAME.golden.
func (r *snippetRun) golden(name string, snippets ...snippet) {
	r.t.Helper()
	var b strings.Builder
	for _, sn := range snippets {
		if sn.do != nil {
			sn.do()
			continue
		}
		src := sn.src
		for k, v := range r.vars {
			src = strings.ReplaceAll(src, "$"+k, v)
		}
		var out bytes.Buffer
		printed, err := r.f.Run(r.f.Thread(&out), &out, src)
		switch {
		case sn.fails && err == nil:
			r.t.Errorf("%s: want an error, printed:\n%s", src, printed)
		case !sn.fails && err != nil:
			r.t.Errorf("%s: %v\nprinted:\n%s", src, err, printed)
		}
		if sn.capture != "" {
			lines := strings.Split(strings.TrimSpace(printed), "\n")
			v := lines[len(lines)-1]
			r.vars[sn.capture] = v
			r.sc.Literal(v, "<"+sn.capture+">")
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		for i, line := range strings.Split(strings.TrimSpace(sn.src), "\n") {
			if i == 0 {
				b.WriteString(">>> " + line + "\n")
			} else {
				b.WriteString("... " + line + "\n")
			}
		}
		b.WriteString(r.sc.Scrub(printed))
		if err != nil {
			b.WriteString(r.sc.Scrub("error: "+err.Error()) + "\n")
		}
	}
	testutil.Golden(r.t, filepath.Join("testdata", name+".golden"), b.String(), *update)
}

// salesCSV is the table of the snippets. Its times are far from now, so
// the scrubber keeps them.
const salesCSV = "region,units,price,ok,when\nnorth,3,2.5,true,1999-01-02T03:04:05Z\nsouth,7,1.25,false,1999-02-03T04:05:06Z\neast,1,10,true,1999-03-04T05:06:07Z\n"

// TestSnippetsPlatform: pods, healthcheck, agents, a site summary made of
// pods, pod_controller, and the fabric module (config, status, logs; up
// and down only where they start and stop nothing).
func TestSnippetsPlatform(t *testing.T) {
	f := newFixture(t)
	r := newSnippetRun(t, f)
	r.vars["WORKER"] = f.Fabric.PodsOf("a", api.Worker)[0]
	r.golden("platform",
		snippet{src: `print([(p["pod_category"], p["pod_type"], p["site_name"], p["pod_leader"]) for p in pods()])`},
		snippet{src: `p = pods(type = "api-server", versions = True)[0]
print(p["pod_version"], p["platform_version"], p["labels"]["tenant_name"], p["capacity_filter"])
print(sorted(p["resources"].keys()))`},
		snippet{src: `print(pods(type = "nosuch"))`},
		snippet{src: `pods(type = 1)`, fails: true},
		snippet{src: `rows = healthcheck(type = "scheduler")
for r in rows:
    print(r["cat"], r["pod_type"], r["health_parameter"], r["status"], r["message"])`},
		snippet{src: `print(len(healthcheck(infra = True)), len(healthcheck(apps = True)), len(healthcheck()))
print(sorted(set([r["status"] for r in healthcheck()])))`},
		snippet{src: `healthcheck(infra = True, apps = True)`, fails: true},
		snippet{src: `a = agents()
print(len(a), a[0]["agent_type"], a[0]["pod_type"], a[0]["site_name"])
print(len(agents(site = "LOCAL")), agents(site = "elsewhere"), agents(type = "worker"))`},
		snippet{src: `agents(site = 3)`, fails: true},
		snippet{src: `# a site summary, as client site-summary makes it
sites = {}
for p in pods():
    if p["site_name"]:
        s = sites.setdefault(p["site_name"], {"pods": 0, "workers": 0, "agents": 0})
        s["pods"] += 1
        s["workers"] += 1 if p["pod_type"] == "worker" else 0
        s["agents"] += 1 if p["pod_type"] == "event-gateway" else 0
print(sites)`},
		snippet{src: `print([(s["pod_type"], s["state"], s["restarts"]) for s in pod_controller.status()])`},
		snippet{src: `s = pod_controller.restart("$WORKER")
print(s["pod_type"], s["pod_id"] == "$WORKER", s["restarts"])`},
		snippet{src: `pod_controller.restart("nosuch")`, fails: true},
		snippet{src: `pod_controller.status(1)`, fails: true},
	)
	r.golden("fabric",
		snippet{src: `print(fabric.config())`},
		snippet{src: `print(fabric.status())`},
		snippet{src: `fabric.logs()`, fails: true},
		snippet{src: `fabric.logs(lines = "all")`, fails: true},
		snippet{src: `fabric.up(tenants = "a")`, fails: true},
		snippet{src: `fabric.up(tenants = ["BAD!"])`, fails: true},
		snippet{src: `fabric.up(workers = -1)`, fails: true},
		// No local fabric runs in the fixture's home: down stops nothing.
		snippet{src: `print(fabric.down())`},
	)
}

// TestSnippetsLocal: the modules that need no fabric (frame, cfxql,
// file_ops).
func TestSnippetsLocal(t *testing.T) {
	f := newFixture(t)
	r := newSnippetRun(t, f)
	f.File("sales.csv", salesCSV)
	f.File("bad.csv", "a,b\n1,2\n3,4,5\n")
	if err := os.MkdirAll(filepath.Join(f.Dir, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	testutil.WriteGz(t, filepath.Join(f.Dir, "logs", "a.gz"), `{"ts": 3, "m": "c"}`+"\n"+`{"ts": 1, "m": "a"}`+"\n")
	testutil.WriteGz(t, filepath.Join(f.Dir, "logs", "b.gz"), `{"ts": 2, "m": "b"}`+"\n")

	r.golden("frame",
		snippet{src: `f = frame.read("sales.csv")
print(f)
print(len(f), f.shape, f.num_rows, f.num_columns, f.columns)
print(f.dtypes)`},
		snippet{src: `f = frame.read("sales.csv")
print(f.head(2).column("region"), f.tail(1).column("region"), f.select(["price", "region"]).columns)
print(f.sort("units").column("units"), f.sort(["price"], desc = True).column("region"))
print(f.filter(lambda r: r["ok"]).column("region"), f.filter("units > 2").column("region"))
print(f.rows()[0])
print([r["region"] for r in f], f[2]["price"], bool(f), bool(f.head(0)), type(f))`},
		snippet{src: `f = frame.from_rows([{"a": 1, "b": "x"}, {"a": 2.5, "c": True}])
print(f.dtypes)
print(f.rows())
print(f)`},
		snippet{src: `f = frame.read("sales.csv")
g = f.with_column("total", lambda r: r["units"] * r["price"]).with_column("units", [1, 2, 3])
print(g.columns, g.dtypes["total"], g.column("total"), g.column("units"))
print(f.with_column("when", lambda r: r["when"]).dtypes["when"], f.with_column("x", lambda r: None).dtypes["x"])`},
		snippet{src: `f = frame.read("sales.csv")
print(f.write("out.jsonl"), f.to_csv("out.csv.gz"), f.to_parquet("out.parquet"), f.to_json("out.json"))
print(file.read("out.jsonl"))
print(frame.read("out.parquet", format = "parquet").rows() == f.rows(), frame.read("out.csv.gz").rows() == f.rows())`},
		snippet{src: `frame.read("none.csv")`, fails: true},
		snippet{src: `frame.read("sales.csv", format = "xml")`, fails: true},
		snippet{src: `frame.read("bad.csv")`, fails: true},
		snippet{src: `frame.read("sales.csv").select(["nope"])`, fails: true},
		snippet{src: `frame.read("sales.csv").sort("nope")`, fails: true},
		snippet{src: `frame.read("sales.csv").filter("units >")`, fails: true},
		snippet{src: `frame.read("sales.csv").filter(lambda r: r["nope"])`, fails: true},
		snippet{src: `frame.read("sales.csv").filter(3)`, fails: true},
		snippet{src: `frame.from_rows([1])`, fails: true},
		snippet{src: `frame.read("sales.csv").with_column("x", [1])`, fails: true},
		snippet{src: `frame.read("sales.csv").with_column("x", lambda r: r["nope"])`, fails: true},
		snippet{src: `frame.read("sales.csv").write("out.xml")`, fails: true},
	)
	// Off a terminal (as here) viz prints the frame, with a notice.
	r.golden("viz",
		snippet{src: `viz(frame.read("sales.csv"), title = "sales")`},
		snippet{src: `viz(frame.read("sales.csv").filter("units > 2").select(["region"]))`},
		snippet{src: `viz(frame.from_rows([{"a": 1, "b": None}]))`},
		snippet{src: `viz([1])`, fails: true},
		snippet{src: `viz()`, fails: true},
		snippet{src: `viz(frame.read("sales.csv").select(["nope"]))`, fails: true},
	)
	r.golden("cfxql",
		snippet{src: `d = {"cpu_load1": 3.5, "site": "nyc", "labels": {"tier": "web"}}
print(cfxql.match("cpu_load1 <= 7.0 and site is 'nyc'", d))
print(cfxql.match("cpu_load1 > 7.0 or site is 'paris'", d))
print(cfxql.match("labels.tier is 'web'", d), cfxql.match("missing is null", d))`},
		snippet{src: `print(cfxql.check("cpu > 90 get host, cpu as load"))
print(cfxql.check("*"))`},
		snippet{src: `cfxql.check("cpu >")`, fails: true},
		snippet{src: `cfxql.match("site is", {})`, fails: true},
		snippet{src: `cfxql.match("site is 'nyc'", ["not", "a", "dict"])`, fails: true},
	)
	r.golden("file_ops",
		snippet{src: `r = file_ops.copy("sales.csv", "copy.parquet")
print(r["rows"], r["columns"], r["dtypes"], r["size"] > 0)
print(file_ops.copy("copy.parquet", "back.jsonl")["rows"])
print(file.read("back.jsonl"))`},
		snippet{src: `r = file_ops.csv_to_parquet("sales.csv", "sales.parquet")
print(r["rows"], r["columns"], r["dtypes"])`},
		snippet{src: `for r in file_ops.test_formats("formats", rows = 20):
    print(r["format"], r["rows"], r["ok"])`},
		snippet{src: `print(file_ops.merge_logarchive_files("logs", "merged.jsonl", ts = "ts"))
print(file.read("merged.jsonl"))`},
		snippet{src: `file_ops.copy("none.csv", "x.csv")`, fails: true},
		snippet{src: `file_ops.copy("bad.csv", "x.json")`, fails: true},
		snippet{src: `file_ops.copy("sales.csv", "x.csv", dst_format = "xml")`, fails: true},
		snippet{src: `file_ops.csv_to_parquet("bad.csv", "x.parquet")`, fails: true},
		snippet{src: `file_ops.test_formats("formats", rows = 0)`, fails: true},
		snippet{src: `file_ops.merge_logarchive_files("logs", "m.jsonl", sample = 0)`, fails: true},
		snippet{src: `file_ops.merge_logarchive_files("none", "m.jsonl")`, fails: true},
	)
}
