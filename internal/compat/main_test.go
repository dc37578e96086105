package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestReport: go test -json events become units: subtests count and
// their parents do not (unless a parent fails on its own), a test that
// never ended fails, skips keep their reason, groups come from the file
// of the top-level test and protocols from the Wrap subtests' names.
func TestReport(t *testing.T) {
	files := map[string]string{
		"TestGetDatabase":   "database_test.go",
		"TestCreateDoc":     "database_collection_doc_create_test.go",
		"TestImport":        "database_collection_doc_import_test.go",
		"TestClusterHealth": "admin_cluster_test.go",
		"TestEnterprise":    "database_query_test.go",
		"TestHangs":         "cursor_test.go",
	}
	r := newRun()
	for _, ev := range []event{
		{Action: "run", Test: "TestGetDatabase"},
		{Action: "run", Test: "TestGetDatabase/HTTP_JSON"},
		{Action: "pass", Test: "TestGetDatabase/HTTP_JSON"},
		{Action: "run", Test: "TestGetDatabase/HTTP2_JSON"},
		{Action: "output", Test: "TestGetDatabase/HTTP2_JSON", Output: "    database_test.go:40: \n"},
		{Action: "output", Test: "TestGetDatabase/HTTP2_JSON", Output: "        \tError Trace:\t/x/database_test.go:40\n"},
		{Action: "output", Test: "TestGetDatabase/HTTP2_JSON", Output: "        \tError:      \tReceived unexpected error:\n"},
		{Action: "output", Test: "TestGetDatabase/HTTP2_JSON", Output: "        \t            \tdatabase not found\n"},
		{Action: "fail", Test: "TestGetDatabase/HTTP2_JSON"},
		{Action: "fail", Test: "TestGetDatabase"},
		{Action: "run", Test: "TestCreateDoc"},
		{Action: "run", Test: "TestCreateDoc/HTTP_JSON"},
		{Action: "pass", Test: "TestCreateDoc/HTTP_JSON"},
		{Action: "output", Test: "TestCreateDoc", Output: "    helper_test.go:12: cleanup failed\n"},
		{Action: "fail", Test: "TestCreateDoc"}, // fails after its subtests passed
		{Action: "run", Test: "TestImport"},
		{Action: "pass", Test: "TestImport"},
		{Action: "run", Test: "TestClusterHealth"},
		{Action: "output", Test: "TestClusterHealth", Output: "=== RUN   TestClusterHealth\n"},
		{Action: "output", Test: "TestClusterHealth", Output: "    util_test.go:60: test is in \"single\" mode, but it requires one of \"[cluster]\"\n"},
		{Action: "output", Test: "TestClusterHealth", Output: "--- SKIP: TestClusterHealth (0.00s)\n"},
		{Action: "skip", Test: "TestClusterHealth"},
		{Action: "run", Test: "TestEnterprise"},
		{Action: "output", Test: "TestEnterprise", Output: "    util_test.go:78: Skipping test, no enterprise version\n"},
		{Action: "skip", Test: "TestEnterprise"},
		{Action: "run", Test: "TestHangs"},
		{Action: "run", Test: "TestHangs/HTTP_JSON"},
	} {
		r.add(ev, func() {})
	}
	rep := r.report(files)
	got := map[string]unit{}
	for _, u := range rep.units {
		got[u.name] = u
	}
	want := map[string][3]string{ // group, protocol, outcome
		"TestGetDatabase/HTTP_JSON":  {"databases", "http", "pass"},
		"TestGetDatabase/HTTP2_JSON": {"databases", "h2c", "fail"},
		"TestCreateDoc/HTTP_JSON":    {"documents", "http", "pass"},
		"TestCreateDoc":              {"documents", "", "fail"},
		"TestImport":                 {"import", "", "pass"},
		"TestClusterHealth":          {"admin & server", "", "skip"},
		"TestEnterprise":             {"queries", "", "skip"},
		"TestHangs/HTTP_JSON":        {"cursors", "http", "fail"},
	}
	if len(got) != len(want) {
		t.Errorf("units %v, want %d", got, len(want))
	}
	for name, w := range want {
		u, ok := got[name]
		if !ok || u.group != w[0] || u.protocol != w[1] || u.outcome != w[2] {
			t.Errorf("%s: %+v, want %v", name, u, w)
		}
	}
	reasons := map[string]string{
		"TestGetDatabase/HTTP2_JSON": "Received unexpected error: database not found",
		"TestCreateDoc":              "cleanup failed",
		"TestClusterHealth":          skipCluster + ": ",
		"TestEnterprise":             skipEnterprise + ": ",
		"TestHangs/HTTP_JSON":        "did not finish",
	}
	for name, w := range reasons {
		if !strings.HasPrefix(got[name].reason, w) {
			t.Errorf("%s: reason %q, want %q...", name, got[name].reason, w)
		}
	}
	// databases 1/1, documents 1/1, import 1/0, cursors 0/1: 3 of 6.
	if s := rep.share(claimed); s != 50 {
		t.Errorf("share %.1f, want 50", s)
	}
	if f := rep.failing([]string{"import", "queries"}); len(f) != 0 {
		t.Errorf("failing in import and queries: %v, want none", f)
	}
	if f := rep.failing([]string{"databases"}); len(f) != 1 || f[0] != "TestGetDatabase/HTTP2_JSON" {
		t.Errorf("failing in databases: %v", f)
	}
	var out bytes.Buffer
	rep.print(&out, true, time.Second)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, "3 of 6 = 50.0%") {
		t.Errorf("the last line %q, want the share", last)
	}
	if !strings.Contains(out.String(), "needs a cluster: 1: TestClusterHealth") {
		t.Errorf("no cluster skip listed:\n%s", out.String())
	}
}

// TestGroupOf: every file of the suite's claimed groups lands in its group.
func TestGroupOf(t *testing.T) {
	for file, want := range map[string]string{
		"database_test.go":                            "databases",
		"database_collection_operations_test.go":      "collections",
		"database_collection_doc_read_test.go":        "documents",
		"database_collection_doc_import_test.go":      "import",
		"database_collection_indexes_test.go":         "indexes",
		"cursor_test.go":                              "cursors",
		"database_query_test.go":                      "queries",
		"graph_vertex_collections_test.go":            "graphs",
		"database_transactionsjs_test.go":             "transactions",
		"toxiproxy_latency_test.go":                   "resiliency",
		"admin_cluster_test.go":                       "admin & server",
		"admin_test.go":                               "admin & server",
		"graph_test.go":                               "graphs",
		"database_view-arangosearch_test.go":          "views & analyzers",
		"database_collection_doc_create_code_test.go": "documents",
	} {
		if got := groupOf(file); got != want {
			t.Errorf("%s: %q, want %q", file, got, want)
		}
	}
}
