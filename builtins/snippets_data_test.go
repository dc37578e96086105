package builtins_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/internal/testutil"
)

// TestSnippetsDatasets: the dataset module (plain and bounded datasets)
// and the schema module.
func TestSnippetsDatasets(t *testing.T) {
	f := newFixture(t)
	r := newSnippetRun(t, f)
	f.File("sales.csv", salesCSV)
	f.File("bad.csv", "a,b\n1,2\n3,4,5\n")
	f.File("x.dat", "1")
	f.File("hosts.schema.json", `{"type": "object", "required": ["host", "cpu"],
  "properties": {"host": {"type": "string"}, "cpu": {"type": "number", "minimum": 0, "maximum": 100}}}`)
	f.File("not-json.json", `{"type": `)
	f.File("good.csv", "host,cpu\nweb-1,12.5\nweb-2,99\n")
	f.File("violating.csv", "host,cpu\nweb-1,12.5\nweb-2,150\n")

	r.golden("schema",
		snippet{src: `s = schema.add("hosts", file = "hosts.schema.json", descr = "hosts and their cpu")
print(s["name"], s["description"], s["schema"]["required"])`},
		snippet{src: `s = schema.add("tiny", schema = {"type": "object", "properties": {"n": {"type": "integer"}}})
print(s["schema"])`},
		snippet{src: `print([(s["name"], s["description"]) for s in schema.list()])
print(schema.get("hosts")["schema"]["properties"]["cpu"])`},
		snippet{src: `schema.delete("tiny")
print([s["name"] for s in schema.list()])`},
		snippet{src: `schema.add("hosts", file = "hosts.schema.json")`, fails: true},
		snippet{src: `schema.add("broken", schema = {"type": 12})`, fails: true},
		snippet{src: `schema.add("broken", file = "not-json.json")`, fails: true},
		snippet{src: `schema.add("broken")`, fails: true},
		snippet{src: `schema.add("broken", file = "hosts.schema.json", schema = {})`, fails: true},
		snippet{src: `schema.get("nope")`, fails: true},
		snippet{src: `schema.delete("nope")`, fails: true},
	)
	r.golden("dataset",
		snippet{src: `d = dataset.add("sales", file = "sales.csv")
print(d["created"], d["name"], d["format"], d["num_rows"], d["num_columns"], d["mem_size_mb"] > 0)
d = dataset.add("sales", frame = frame.read("sales.csv").head(2), remote_format = "csv", folder = "reports")
print(d["created"], d["format"], d["num_rows"], d["folder"])`},
		snippet{src: `print([(d["name"], d["format"], d["num_rows"]) for d in dataset.list()])
print(dataset.meta("sales"))`},
		snippet{src: `print(dataset.get("sales"))
print(dataset.export("sales", "sales.jsonl"))
print(file.read("sales.jsonl"))`},
		snippet{src: `dataset.dump("sales", format = "csv")
dataset.dump("sales", format = "json")`},
		snippet{src: `dataset.delete("sales")
print(dataset.list())`},
		snippet{src: `dataset.meta("sales")`, fails: true},
		snippet{src: `dataset.get("nope")`, fails: true},
		snippet{src: `dataset.add("x")`, fails: true},
		snippet{src: `dataset.add("x", file = "sales.csv", frame = frame.read("sales.csv"))`, fails: true},
		snippet{src: `dataset.add("x", frame = [1])`, fails: true},
		snippet{src: `dataset.add("x", file = "x.dat")`, fails: true},
		snippet{src: `dataset.add("x", file = "bad.csv")`, fails: true},
		snippet{src: `dataset.add("x", file = "sales.csv", remote_format = "xml")`, fails: true},
		snippet{src: `dataset.add("x", file = "sales.csv")
dataset.dump("x", format = "parquet")`, fails: true},
		snippet{src: `dataset.export("nope", "x.csv")`, fails: true},
		snippet{src: `dataset.delete("nope")`, fails: true},

		snippet{src: `b = dataset.bounded_add("inv", "hosts")
print(b["name"], b["schema"], b["drafts"], b["num_rows"])`},
		snippet{src: `b = dataset.bounded_import("inv", "good.csv", publish = False)
print(len(b["drafts"]), b["num_rows"])
b = dataset.bounded_import("inv", "good.csv")
print(len(b["drafts"]), b["num_rows"], b["dtypes"])`},
		snippet{src: `print([(b["name"], b["schema"], b["num_rows"]) for b in dataset.bounded_list()])
print(dataset.bounded_get("inv"))
print(dataset.bounded_export("inv", "inv.csv"), file.read("inv.csv"))`},
		snippet{src: `m = dataset.bounded_meta("inv")
print(m["name"], m["schema"], len(m["drafts"]), m["num_rows"], m["num_columns"])`},
		snippet{src: `dataset.bounded_import("inv", "violating.csv")`, fails: true},
		snippet{src: `dataset.bounded_add("inv", "hosts")`, fails: true},
		snippet{src: `dataset.bounded_add("inv2", "nope")`, fails: true},
		snippet{src: `dataset.bounded_get("nope")`, fails: true},
		snippet{src: `schema.delete("hosts")`, fails: true},
		snippet{src: `dataset.bounded_delete("inv")
schema.delete("hosts")
print(dataset.bounded_list(), schema.list())`},
		snippet{src: `dataset.bounded_meta("inv")`, fails: true},
	)
}

// TestSnippetsObjects: the object module.
func TestSnippetsObjects(t *testing.T) {
	f := newFixture(t)
	r := newSnippetRun(t, f)
	f.File("notes.txt", "first version\n")
	f.File("notes2.txt", "second version, longer\n")
	f.File("bad.zip", "not a zip")
	testutil.ZipFile(t, filepath.Join(f.Dir, "bundle.zip"), [][2]string{
		{"default/packs/a.json", `{"a":1}`}, {"archive/2024/b.txt", "bee"}, {"toplevel", "x"}})
	if err := os.Mkdir(filepath.Join(f.Dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}

	r.golden("object",
		snippet{src: `o = object.add("notes.txt", "docs", "notes.txt", descr = "my notes")
print(o["name"], o["folder"], o["description"], o["file_type"], o["file_size"])
o = object.put("hello.bin", "docs", b"\x00\x01hi")
print(o["name"], o["file_type"], o["file_size"])`},
		snippet{src: `print(repr(object.read("notes.txt", "docs")), repr(object.read("hello.bin", "docs", binary = True)))
print(object.download("notes.txt", "docs", "out/copy.txt"), repr(file.read("out/copy.txt")))`},
		snippet{src: `object.add("notes.txt", "docs", "notes2.txt", overwrite = True)
print([(o["folder"], o["name"], o["file_size"]) for o in object.list()])
print(object.meta("notes.txt", "docs"))
print(object.list(folder = "nothing-here"))`},
		snippet{src: `for row in object.copy_to_objstore("bundle.zip", verify = True):
    print(row)
for row in object.copy_to_objstore("bundle.zip"):
    print(row["object"], row["status"])
for row in object.copy_to_objstore("bundle.zip"):
    print(row["object"], row["status"])
print(object.read("a.json", "packs"))`},
		snippet{src: `object.delete("hello.bin", "docs")
print([o["name"] for o in object.list(folder = "docs")])`},
		snippet{src: `object.add("notes.txt", "docs", "notes2.txt")`, fails: true},
		snippet{src: `object.add("x", "docs", "none.txt")`, fails: true},
		snippet{src: `object.put("x", "docs", 12)`, fails: true},
		snippet{src: `object.read("nope", "docs")`, fails: true},
		snippet{src: `object.download("notes.txt", "docs", "missing-dir/copy.txt")`, fails: true},
		snippet{src: `object.meta("nope", "docs")`, fails: true},
		snippet{src: `object.delete("hello.bin", "docs")`, fails: true},
		snippet{src: `object.copy_to_objstore("bad.zip")`, fails: true},
		snippet{src: `object.copy_to_objstore("none.zip")`, fails: true},
	)
}

const hotHostsYAML = `name: hot-hosts
description: hosts over 90% cpu
data:
  sequence:
    - tag: "@dm:empty"
    - tag: "@dm:addrow"
      query: host = 'web-1' & cpu = 93.5
    - tag: "*dm:filter"
      query: cpu > 90
      comment: hot only
`

// TestSnippetsPipelines: the pipeline module.
func TestSnippetsPipelines(t *testing.T) {
	f := newFixture(t)
	r := newSnippetRun(t, f)
	r.vars["V1"] = time.Now().UTC().Format("2006_01_02") + "_1"
	f.File("hot.yaml", hotHostsYAML)

	r.golden("pipeline",
		snippet{src: `print(pipeline.checksum(file.read("hot.yaml"), file = "hot.yaml"))`},
		snippet{src: `print(pipeline.checksum("@dm:empty --> *dm:filter cpu > 90", file = "hot.pipeline")["name"])`},
		snippet{src: `bots = pipeline.bots()
print(len(bots) > 30, [b["tag"] for b in bots if b["tag"].startswith("@dm:s")])
print([b for b in bots if b["tag"] == "@dm:head"][0])`},
		snippet{src: `p = pipeline.parse(file.read("hot.yaml"))
print(p["name"], p["format"], len(p["data"]["sequence"]))
print(pipeline.parse('{"data": {"name": "j", "sequence": [{"tag": "@dm:empty"}]}}')["name"])
print(pipeline.parse("@dm:empty\n  --> @dm:head n = 1", file = "t.pipeline"))`},
		snippet{src: `print(pipeline.to_text(pipeline.parse(file.read("hot.yaml"))["data"]["sequence"]))`},
		snippet{src: `p = pipeline.add(file = "hot.yaml")
print(p["name"], p["version"], p["pipetype"], p["format"])
p = pipeline.add(text = "@dm:empty --> @dm:head n = 1", name = "small", pipetype = "Draft")
print(p["name"], p["version"], p["pipetype"], p["format"])
print(pipeline.add(file = "hot.yaml")["version"])`},
		snippet{src: `print([(p["name"], p["version"]) for p in pipeline.list()])
print([p["version"] for p in pipeline.get_versions("hot-hosts")])
print(pipeline.get("hot-hosts")["version"], pipeline.get("hot-hosts", version = "$V1")["version"])`},
		snippet{src: `print([(p["name"], p["version"]) for p in pipeline.convert_to_json("Published")])
print(pipeline.convert_to_json("Published"), pipeline.get("hot-hosts")["format"])`},
		snippet{src: `pipeline.delete("hot-hosts", "$V1")
print([p["version"] for p in pipeline.get_versions("hot-hosts")])`},
		snippet{src: `pipeline.checksum("[1]", file = "x.json")`, fails: true},
		snippet{src: `pipeline.parse("name: x\n  bad: indent\n", file = "x.yaml")`, fails: true},
		snippet{src: `pipeline.parse("@dm:empty\n-->\n", file = "x.pipeline")`, fails: true},
		snippet{src: `pipeline.to_text([{"tag": "dm:empty"}])`, fails: true},
		snippet{src: `pipeline.add()`, fails: true},
		snippet{src: `pipeline.add(text = "@dm:empty")`, fails: true},
		snippet{src: `pipeline.add(file = "hot.yaml", pipetype = "Final")`, fails: true},
		snippet{src: `pipeline.get("nope")`, fails: true},
		snippet{src: `pipeline.get("hot-hosts", version = "2001_01_01_1")`, fails: true},
		snippet{src: `pipeline.get_versions("nope")`, fails: true},
		snippet{src: `pipeline.delete("hot-hosts", "$V1")`, fails: true},
		// Pipetypes are read in any case here (the command's flag takes
		// only Published or Draft).
		snippet{src: `print(pipeline.convert_to_json("published"))`},
		snippet{src: `pipeline.convert_to_json("Final")`, fails: true},
	)
}

// TestSnippetsJobs: run, verify_pipeline, wait, job, jobs, output,
// output_export, evict, purge_outputs and watch_traces.
func TestSnippetsJobs(t *testing.T) {
	f := newFixture(t)
	r := newSnippetRun(t, f)
	f.File("hosts.pipeline", "@dm:empty\n  --> @dm:addrow host = 'web-1' & cpu = 93.5\n  --> @dm:addrow host = 'web-2' & cpu = 12\n  --> *dm:filter cpu > 50 get host, cpu\n")
	f.File("unknown.pipeline", "@dm:empty\n --> @dm:nosuchbot x = 1\n")
	f.File("failing.pipeline", "@dm:recall name = 'no-such-dataset'\n")
	f.File("traced.pipeline", "@c:timed-loop interval = 0.1 & duration = 600\n  --> @dm:empty\n")
	// running waits until the job $LONG runs.
	running := func() {
		deadline := time.Now().Add(10 * time.Second)
		for {
			if out := f.Exec(`print(job("` + r.vars["LONG"] + `")["status"])`); strings.TrimSpace(out) == "Running" {
				return
			}
			if time.Now().After(deadline) {
				t.Fatal("the long job is not Running after 10s")
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	r.golden("jobs",
		snippet{src: `print(verify_pipeline(file = "hosts.pipeline"))`},
		snippet{src: `print(run(file = "hosts.pipeline"))`, capture: "JOB1"},
		snippet{src: `seen = []
j = wait("$JOB1", on_status = lambda j: seen.append(j["status"]))
print(j["status"], j["pipeline"], j["steps"], j["output_rows"], seen[-1])`},
		snippet{src: `j = job("$JOB1"[:6])
print(j["jobid"] == "$JOB1", j["status"], j["site_name"])
print(j)`},
		snippet{src: `print(output("$JOB1"))
print(output_export("$JOB1", "out.csv"), file.read("out.csv"))`},
		snippet{src: `r = run(file = "failing.pipeline", full = True)
print(sorted(r.keys()), r["status"])
print(r["jobid"])`, capture: "FAILED"},
		snippet{src: `j = wait("$FAILED")
print(j["status"], j["reason"])`},
		snippet{src: `print(run(file = "traced.pipeline", site = "local", rfilter = "cpu_count >= 1"))`, capture: "LONG"},
		snippet{do: running},
		snippet{src: `print([(j["pipeline"], j["status"]) for j in jobs()])
print([(j["pipeline"], j["status"]) for j in jobs(all = True)])
print([j["jobid"] for j in jobs(all = True, pipeline_name = "failing")])`},
		snippet{src: `seen = []
watch_traces(lambda t: seen.append(t), timeout = 0.5)
print(len(seen) > 0, sorted(set([(t["pipeline"], t["jobid"]) for t in seen])))
print(sorted(seen[0].keys()))`},
		snippet{src: `wait("$LONG", timeout = 0.2)`, fails: true},
		snippet{src: `watch_traces(lambda t: fail("stop at trace of", t["pipeline"]), timeout = 10)`, fails: true},
		snippet{src: `print(evict("$LONG")["status"])`},
		snippet{src: `print(purge_outputs(), purge_outputs())`},

		snippet{src: `verify_pipeline(file = "unknown.pipeline")`, fails: true},
		snippet{src: `run(file = "unknown.pipeline")`, fails: true},
		snippet{src: `run()`, fails: true},
		snippet{src: `run(name = "x", file = "hosts.pipeline")`, fails: true},
		snippet{src: `run(name = "nope")`, fails: true},
		snippet{src: `run(file = "hosts.pipeline", site = "paris")`, fails: true},
		snippet{src: `run(file = "hosts.pipeline", lfilter = "tenant_name is")`, fails: true},
		snippet{src: `job("zz")`, fails: true},
		snippet{src: `wait("$JOB1", on_status = 1)`, fails: true},
		snippet{src: `wait("zz", timeout = 0.1)`, fails: true},
		snippet{src: `evict("$LONG")`, fails: true},
		snippet{src: `output("$FAILED")`, fails: true},
		snippet{src: `output("$LONG")`, fails: true},
		snippet{src: `output("$JOB1")`, fails: true},
		snippet{src: `watch_traces(lambda t: fail("stop at the first trace"), timeout = "x")`, fails: true},
	)
}
