package builtins_test

import "testing"

// TestSnippetsStreams: the stream module (add, get, list, write of rows
// and files, read, follow, delete) and watch_changes and watch_logs.
func TestSnippetsStreams(t *testing.T) {
	f := newFixture(t)
	r := newSnippetRun(t, f)
	f.File("events.jsonl", `{"host":"r1","sev":3}`+"\n"+`{"host":"r2","sev":5}`+"\n")
	f.File("events.csv", "host,sev\nsw1,4\n")
	f.File("broken.csv", "host,sev\n\"sw1,4\n")
	r.golden("stream",
		snippet{src: `s = stream.add("events", description = "edge", retention_hours = 1, max_size_mb = 1)
print(s["name"], s["description"], s["retention_hours"], s["max_size_mb"], s["messages"], s["system"])`},
		snippet{src: `print(sorted([s["name"] for s in stream.list()]))`},
		snippet{src: `print(stream.write("events", rows = [{"host": "h1", "sev": 1, "tags": ["a", "b"]}, {"host": "h2"}]))
print(stream.write("events", file = "events.jsonl"))
print(stream.write("events", file = "events.csv"))`},
		snippet{src: `rows = stream.read("events")
print(len(rows), rows[0], rows[-1])
print(stream.read("events", max_rows = 1))
print(stream.read("events", from_ = "2999-01-01"), stream.get("events")["messages"])`},
		snippet{src: `seen = []
print(stream.follow("events", lambda r: seen.append(r["host"]), from_ = 0, max_rows = 3), seen)`},
		snippet{src: `print(stream.follow("events", lambda r: None, timeout = 0.3))`},
		snippet{src: `seen = []
stream.add("later")
watch_changes(lambda c: seen.append(c), timeout = 0.1)
print(type(seen))
watch_logs(lambda l: None, timeout = 0.1)`},
		snippet{src: `stream.delete("events")
print([s["name"] for s in stream.list() if not s["system"]])`},

		snippet{src: `stream.add("later")`, fails: true},
		snippet{src: `stream.add("bad name")`, fails: true},
		snippet{src: `stream.add("x", retention_hours = -1)`, fails: true},
		snippet{src: `stream.get("events")`, fails: true},
		snippet{src: `stream.delete("fabric_gateway_errors")`, fails: true},
		snippet{src: `stream.write("later")`, fails: true},
		snippet{src: `stream.write("later", rows = [1])`, fails: true},
		snippet{src: `stream.write("later", file = "broken.csv")`, fails: true},
		snippet{src: `stream.write("nope", rows = [{}])`, fails: true},
		snippet{src: `stream.read("later", from_ = "soon")`, fails: true},
		snippet{src: `stream.read("later", from_ = [])`, fails: true},
		snippet{src: `stream.write("later", rows = [{"a": 1}])
stream.follow("later", lambda r: fail("stop at", r), from_ = 0, timeout = 5)`, fails: true},
	)
}
