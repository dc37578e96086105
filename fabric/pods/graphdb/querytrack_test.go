package graphdb_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// callJSON makes a request and decodes its JSON answer into out.
func callJSON(t *testing.T, url, method, path string, body, out any) int {
	t.Helper()
	status, _, data := raw(t, url, method, path, nil, body)
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s %s: %v: %s", method, path, err, data)
		}
	}
	return status
}

// apiAnswer is an ArangoDB answer's error fields.
type apiAnswer struct {
	Error        bool   `json:"error"`
	ErrorNum     int    `json:"errorNum"`
	ErrorMessage string `json:"errorMessage"`
}

// running lists database db's running queries.
func running(t *testing.T, url, db string) []map[string]any {
	var qs []map[string]any
	if st := callJSON(t, url, "GET", "/_db/"+db+"/_api/query/current", nil, &qs); st != 200 {
		t.Fatalf("current: %d", st)
	}
	return qs
}

// TestKillQuery: a long query (nested loops over a million numbers each)
// is listed among its database's running queries, not among another
// database's, cannot be killed from another database, and stops with
// ArangoDB's "query killed" (410, 1500) when killed from another request.
func TestKillQuery(t *testing.T) {
	url := serve(t, t.TempDir())
	for _, db := range []string{"a", "b"} {
		if st := callJSON(t, url, "POST", "/_api/database", map[string]any{"name": db}, nil); st != 201 {
			t.Fatalf("create %s: %d", db, st)
		}
	}
	long := "FOR x IN 1..1000000 FOR y IN 1..1000000 FILTER x == -y RETURN [x, y]"
	done := make(chan apiAnswer, 1)
	go func() {
		var a apiAnswer
		status, _, data := raw(t, url, "POST", "/_db/a/_api/cursor", nil, map[string]any{"query": long, "bindVars": map[string]any{}})
		json.Unmarshal(data, &a)
		if status != 410 {
			a.ErrorMessage = fmt.Sprintf("status %d: %s", status, data)
		}
		done <- a
	}()
	var id string
	for deadline := time.Now().Add(10 * time.Second); id == "" && time.Now().Before(deadline); {
		for _, q := range running(t, url, "a") {
			if q["query"] == long && q["state"] == "executing" && q["database"] == "a" {
				id = q["id"].(string)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if id == "" {
		t.Fatal("the long query is not listed")
	}
	if qs := running(t, url, "b"); len(qs) != 0 {
		t.Errorf("database b lists %v", qs)
	}
	for _, c := range []struct {
		path   string
		status int
		num    int
	}{
		{"/_db/b/_api/query/" + id, 404, 1591},               // another database's query
		{"/_db/a/_api/query/nosuch", 404, 1591},              // no such query
		{"/_db/b/_api/query/" + id + "?all=true", 403, 1230}, // all databases: _system only
		{"/_db/a/_api/query/" + id, 200, 0},
	} {
		var a apiAnswer
		if st := callJSON(t, url, "DELETE", c.path, nil, &a); st != c.status || a.ErrorNum != c.num {
			t.Errorf("DELETE %s: %d %+v, want %d %d", c.path, st, a, c.status, c.num)
		}
	}
	select {
	case a := <-done:
		if a.ErrorNum != 1500 || !strings.Contains(a.ErrorMessage, "query killed") {
			t.Errorf("the killed query answered %+v", a)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the killed query still runs")
	}
	if qs := running(t, url, "a"); len(qs) != 0 {
		t.Errorf("still listed: %v", qs)
	}
}

// TestSlowQueries: the slow queries are kept per database, the newest
// maxSlowQueries of them; the properties are held to their caps, a query
// kept is cut to maxQueryStringLength, and DELETE clears the list.
func TestSlowQueries(t *testing.T) {
	url := serve(t, t.TempDir())
	var props map[string]any
	for _, c := range []struct {
		set  map[string]any
		want map[string]any
	}{
		{map[string]any{}, map[string]any{"enabled": true, "maxSlowQueries": 64.0, "slowQueryThreshold": 10.0, "maxQueryStringLength": 4096.0}},
		{map[string]any{"maxSlowQueries": 1e6, "maxQueryStringLength": 1e9}, map[string]any{"maxSlowQueries": 256.0, "maxQueryStringLength": 16384.0}},
		{map[string]any{"maxSlowQueries": 3, "slowQueryThreshold": 0, "maxQueryStringLength": 20, "trackBindVars": true},
			map[string]any{"maxSlowQueries": 3.0, "slowQueryThreshold": 0.0, "maxQueryStringLength": 20.0}},
	} {
		if st := callJSON(t, url, "PUT", "/_api/query/properties", c.set, &props); st != 200 {
			t.Fatalf("PUT %v: %d %v", c.set, st, props)
		}
		for k, v := range c.want {
			if props[k] != v {
				t.Errorf("after %v: %s is %v, want %v", c.set, k, props[k], v)
			}
		}
	}
	var a apiAnswer
	if st := callJSON(t, url, "PUT", "/_api/query/properties", map[string]any{"slowQueryThreshold": -1}, &a); st != 400 || a.ErrorNum != 10 {
		t.Errorf("a negative threshold: %d %+v", st, a)
	}
	for i := range 6 {
		q := fmt.Sprintf("RETURN [@n, %d, 'a long query text']", i)
		if st := callJSON(t, url, "POST", "/_api/cursor", map[string]any{"query": q, "bindVars": map[string]any{"n": i}}, nil); st != 201 {
			t.Fatalf("query %d: %d", i, st)
		}
	}
	var slow []map[string]any
	callJSON(t, url, "GET", "/_api/query/slow", nil, &slow)
	if len(slow) != 3 {
		t.Fatalf("%d slow queries, want 3: %v", len(slow), slow)
	}
	last := slow[2]
	if last["query"] != "RETURN [@n, 5, 'a lo" || last["exitCode"] != 0.0 || last["state"] != "finished" ||
		fmt.Sprint(last["bindVars"]) != "map[n:5]" {
		t.Errorf("the newest slow query: %v", last)
	}
	var other []map[string]any
	callJSON(t, url, "POST", "/_api/database", map[string]any{"name": "other"}, nil)
	if callJSON(t, url, "GET", "/_db/other/_api/query/slow", nil, &other); len(other) != 0 {
		t.Errorf("another database lists %v", other)
	}
	if st := callJSON(t, url, "DELETE", "/_api/query/slow", nil, nil); st != 200 {
		t.Errorf("DELETE slow: %d", st)
	}
	if callJSON(t, url, "GET", "/_api/query/slow", nil, &slow); len(slow) != 0 {
		t.Errorf("after DELETE: %v", slow)
	}
}

// TestCursorRetry: with allowRetry every batch, the last one too, can be
// read again and is the same; the cursor then stays until deleted (or
// its ttl). Without allowRetry a batch cannot be read again, and only the
// last batch or the next can be asked for.
func TestCursorRetry(t *testing.T) {
	url := serve(t, t.TempDir())
	type batch struct {
		ID          string         `json:"id"`
		NextBatchID string         `json:"nextBatchId"`
		HasMore     bool           `json:"hasMore"`
		Result      []float64      `json:"result"`
		Count       int            `json:"count"`
		Extra       map[string]any `json:"extra"`
		apiAnswer
	}
	query := map[string]any{"query": "FOR x IN 1..5 RETURN x", "batchSize": 2, "count": true, "options": map[string]any{"allowRetry": true}}
	var b batch
	if st := callJSON(t, url, "POST", "/_api/cursor", query, &b); st != 201 || b.ID == "" || b.NextBatchID != "2" || b.Count != 5 {
		t.Fatalf("first batch: %d %+v", st, b)
	}
	id := b.ID
	var got []float64
	got = append(got, b.Result...)
	for n := 1; ; n++ {
		var again batch
		if st := callJSON(t, url, "POST", fmt.Sprintf("/_api/cursor/%s/%d", id, n), nil, &again); st != 200 ||
			fmt.Sprint(again.Result) != fmt.Sprint(b.Result) || again.HasMore != b.HasMore {
			t.Fatalf("batch %d again: %d %+v, want %+v", n, st, again, b)
		}
		if !b.HasMore {
			break
		}
		next := b.NextBatchID
		b = batch{}
		if st := callJSON(t, url, "POST", "/_api/cursor/"+id+"/"+next, nil, &b); st != 200 {
			t.Fatalf("batch %s: %d %+v", next, st, b)
		}
		got = append(got, b.Result...)
	}
	if fmt.Sprint(got) != "[1 2 3 4 5]" || b.ID != id {
		t.Errorf("results %v, last batch's id %q", got, b.ID)
	}
	if st := callJSON(t, url, "DELETE", "/_api/cursor/"+id, nil, nil); st != 202 {
		t.Errorf("DELETE the read cursor: %d", st)
	}

	delete(query, "options")
	b = batch{}
	callJSON(t, url, "POST", "/_api/cursor", query, &b)
	for _, c := range []struct {
		path   string
		status int
		num    int
	}{
		{"/_api/cursor/" + b.ID + "/1", 400, 10}, // not retriable
		{"/_api/cursor/" + b.ID + "/7", 400, 10}, // neither the last batch nor the next
		{"/_api/cursor/" + b.ID + "/2", 200, 0},
		{"/_api/cursor/" + b.ID + "/3", 200, 0},
		{"/_api/cursor/" + b.ID + "/3", 404, 1600}, // read to its end: gone
	} {
		var a apiAnswer
		if st := callJSON(t, url, "POST", c.path, nil, &a); st != c.status || a.ErrorNum != c.num {
			t.Errorf("POST %s: %d %+v, want %d %d", c.path, st, a, c.status, c.num)
		}
	}
}

// TestCursorStats: extra.stats.fullCount counts the rows before the last
// top-level LIMIT when asked for, and the stats count the documents
// scanned.
func TestCursorStats(t *testing.T) {
	url := serve(t, t.TempDir())
	callJSON(t, url, "POST", "/_api/collection", map[string]any{"name": "c"}, nil)
	for i := range 30 {
		callJSON(t, url, "POST", "/_api/document/c", map[string]any{"n": i}, nil)
	}
	for _, c := range []struct {
		query     string
		fullCount bool
		want      any // fullCount; nil: absent
		results   int
	}{
		{"FOR d IN c FILTER d.n >= 10 SORT d.n LIMIT 2, 5 RETURN d.n", true, 20.0, 5},
		{"FOR d IN c LIMIT 3 RETURN d", true, 30.0, 3},
		{"FOR d IN c LIMIT 3 RETURN d", false, nil, 3},
		{"FOR x IN 1..4 RETURN x", true, 4.0, 4},
	} {
		var b struct {
			Result []any `json:"result"`
			Extra  struct {
				Stats map[string]any `json:"stats"`
			} `json:"extra"`
		}
		body := map[string]any{"query": c.query, "options": map[string]any{"fullCount": c.fullCount}}
		if st := callJSON(t, url, "POST", "/_api/cursor", body, &b); st != 201 {
			t.Fatalf("%s: %d", c.query, st)
		}
		stats := b.Extra.Stats
		if len(b.Result) != c.results || stats["fullCount"] != c.want {
			t.Errorf("%s: %d results, stats %v; want %d, fullCount %v", c.query, len(b.Result), stats, c.results, c.want)
		}
		if strings.Contains(c.query, " IN c ") && (stats["scannedFull"] == 0.0 || stats["peakMemoryUsage"] == 0.0) {
			t.Errorf("%s: stats %v", c.query, stats)
		}
	}
}

// TestQueryCaches: the results cache is off (its other properties kept
// as set), the plan cache and the cache's entries are empty, and the
// optimizer rules list each rule with all its flags.
func TestQueryCaches(t *testing.T) {
	url := serve(t, t.TempDir())
	var props map[string]any
	if st := callJSON(t, url, "PUT", "/_api/query-cache/properties", map[string]any{"maxResults": 32, "includeSystem": true}, &props); st != 200 ||
		props["maxResults"] != 32.0 || props["includeSystem"] != true || props["mode"] != "off" {
		t.Errorf("PUT: %d %v", st, props)
	}
	var a apiAnswer
	if st := callJSON(t, url, "PUT", "/_api/query-cache/properties", map[string]any{"mode": "on"}, &a); st != 501 || a.ErrorNum != 9 {
		t.Errorf("mode on: %d %+v", st, a)
	}
	for _, path := range []string{"/_api/query-cache/entries", "/_api/query-plan-cache"} {
		var list []any
		if st := callJSON(t, url, "GET", path, nil, &list); st != 200 || list == nil || len(list) != 0 {
			t.Errorf("GET %s: %d %v", path, st, list)
		}
	}
	for _, path := range []string{"/_api/query-cache", "/_api/query-plan-cache"} {
		if st := callJSON(t, url, http.MethodDelete, path, nil, nil); st != 200 {
			t.Errorf("DELETE %s: %d", path, st)
		}
	}
	var rules []struct {
		Name  string          `json:"name"`
		Flags map[string]bool `json:"flags"`
	}
	callJSON(t, url, "GET", "/_api/query/rules", nil, &rules)
	if len(rules) < 10 || rules[0].Name == "" || len(rules[0].Flags) != 6 {
		t.Errorf("rules: %v", rules)
	}
}
