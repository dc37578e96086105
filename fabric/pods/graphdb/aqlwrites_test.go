package graphdb_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/arangodb/go-driver/v2/arangodb/shared"
	"github.com/fabricops/fabric/fabric/lib/aql"
	"github.com/fabricops/fabric/fabric/lib/graphstore"
	"github.com/fabricops/fabric/fabric/pods/graphdb"
)

// cursorAnswer is POST /_api/cursor's answer, with the write counts.
type cursorAnswer struct {
	Status       int
	ErrorNum     int    `json:"errorNum"`
	ErrorMessage string `json:"errorMessage"`
	Result       []any  `json:"result"`
	Extra        struct {
		Stats struct {
			WritesExecuted int64 `json:"writesExecuted"`
			WritesIgnored  int64 `json:"writesIgnored"`
		} `json:"stats"`
	} `json:"extra"`
}

// postJSON sends a request with a JSON body to the server, as root.
func postJSON(t *testing.T, url, path string, body any) cursorAnswer {
	t.Helper()
	data, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, url+path, bytes.NewReader(data))
	req.SetBasicAuth("root", "secret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var a cursorAnswer
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		t.Fatal(err)
	}
	a.Status = resp.StatusCode
	return a
}

// contents is a collection's documents by key, less _id and _rev.
func contents(t *testing.T, url, coll string) string {
	t.Helper()
	a := postJSON(t, url, "/_api/cursor", map[string]any{"query": "FOR d IN @@c SORT d._key RETURN UNSET(d, '_id', '_rev')", "bindVars": map[string]any{"@c": coll}})
	if a.Status != 201 {
		t.Fatalf("contents of %s: %+v", coll, a)
	}
	data, _ := json.Marshal(a.Result)
	return string(data)
}

// TestAQLWrites: data-modification queries through POST /_api/cursor on
// the real store, one after another: their results (OLD and NEW), the
// write counts in extra.stats, ArangoDB's errors, and the collections
// after each (a failed query leaves them as they were). The tenant's
// memory limit stops a query that would insert more than it allows,
// before it writes.
func TestAQLWrites(t *testing.T) {
	st, err := graphstore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: graphdb.New(st, graphdb.Options{User: "root", Password: "secret",
		Limits: aql.Limits{Memory: 4 << 20}}).Handler()}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close(); st.Close() })
	url := "http://" + ln.Addr().String()
	for _, c := range []map[string]any{{"name": "c"}, {"name": "d"}, {"name": "big"}, {"name": "e", "type": 3}} {
		if a := postJSON(t, url, "/_api/collection", c); a.Status != 200 {
			t.Fatalf("create %s: %+v", c, a)
		}
	}
	k123 := `[{"_key":"k1","n":1},{"_key":"k2","n":2},{"_key":"k3","n":3}]`
	steps := []struct {
		query        string
		binds        map[string]any
		status, num  int    // the answer's status, and errorNum for an error
		result       string // the result, as JSON ("" for an error)
		exec, ignore int64
		c            string // c after the query
	}{
		{"FOR i IN 1..3 INSERT {_key: CONCAT('k', i), n: i} INTO @@c RETURN NEW._key", map[string]any{"@c": "c"}, 201, 0,
			`["k1","k2","k3"]`, 3, 0, k123},
		// A failed insert stores none of its documents; a failed update
		// leaves the documents it changed before the failure as they were.
		{"FOR k IN ['x1', 'k2'] INSERT {_key: k} INTO c", nil, 409, 1210, "", 0, 0, k123},
		{"FOR k IN ['k1', 'nope'] UPDATE k WITH {bad: 1} IN c", nil, 404, 1202, "", 0, 0, k123},
		{"LET y = (INSERT {_key: 'y'} INTO d) FOR k IN ['k3', 'nope'] REMOVE k IN c", nil, 404, 1202, "", 0, 0, k123},
		{"FOR x IN c FILTER x.n >= 2 UPDATE x WITH {n: x.n * 10} IN c RETURN [OLD.n, NEW.n]", nil, 201, 0,
			`[[2,20],[3,30]]`, 2, 0, `[{"_key":"k1","n":1},{"_key":"k2","n":20},{"_key":"k3","n":30}]`},
		{"FOR k IN ['k1', 'zz'] REMOVE k IN c OPTIONS {ignoreErrors: true} RETURN OLD._key", nil, 201, 0,
			`["k1"]`, 1, 1, `[{"_key":"k2","n":20},{"_key":"k3","n":30}]`},
		{"INSERT {_key: 'k2', m: 1} INTO c OPTIONS {overwriteMode: 'update'} RETURN [OLD.n, NEW.n, NEW.m]", nil, 201, 0,
			`[[20,20,1]]`, 1, 0, `[{"_key":"k2","m":1,"n":20},{"_key":"k3","n":30}]`},
		{"INSERT {_key: 'k3'} INTO c OPTIONS {overwriteMode: 'ignore'}", nil, 201, 0,
			`[]`, 1, 0, `[{"_key":"k2","m":1,"n":20},{"_key":"k3","n":30}]`},
		{"REPLACE 'k3' WITH {r: true} IN c RETURN OLD.n", nil, 201, 0,
			`[30]`, 1, 0, `[{"_key":"k2","m":1,"n":20},{"_key":"k3","r":true}]`},
		// UPSERT: one row updates, one inserts.
		{"FOR k IN ['k2', 'k9'] UPSERT {_key: k} INSERT {_key: k, fresh: true} UPDATE {n: OLD.n + 1} IN c RETURN [k, OLD == null, NEW.n]", nil, 201, 0,
			`[["k2",false,21],["k9",true,null]]`, 2, 0, `[{"_key":"k2","m":1,"n":21},{"_key":"k3","r":true},{"_key":"k9","fresh":true}]`},
		// Edges: written with their indexes, which a traversal reads.
		{"INSERT {_from: 'c/k2', _to: 'c/k3'} INTO e RETURN NEW._to", nil, 201, 0, `["c/k3"]`, 1, 0, ""},
		{"FOR v IN 1 OUTBOUND 'c/k2' e RETURN v._key", nil, 201, 0, `["k3"]`, 0, 0, ""},
		{"INSERT {_from: 'c/k2'} INTO e", nil, 400, 1233, "", 0, 0, ""},
		{"UPDATE {_key: 'k2', _rev: 'stale', z: 1} IN c OPTIONS {ignoreRevs: false}", nil, 409, 1200, "", 0, 0, ""},
		{"FOR x IN c REMOVE x IN c FOR y IN c RETURN y", nil, 400, aql.ErrAccessAfterModification, "", 0, 0, ""},
		{"INSERT {} INTO c REMOVE 'k2' IN c", nil, 400, aql.ErrMultiModify, "", 0, 0, ""},
		{"FOR x IN c LET r = (REMOVE x IN c) RETURN r", nil, 400, aql.ErrAccessAfterModification, "", 0, 0, ""},
		{"INSERT {} INTO nope", nil, 404, 1203, "", 0, 0, ""},
		{"INSERT 'text' INTO c", nil, 400, 1227, "", 0, 0, ""},
		// Over the tenant's memory limit: stopped before it writes.
		{"FOR i IN 1..100000 INSERT {i, pad: '" + strings.Repeat("x", 64) + "'} INTO big", nil, 500, aql.ErrResourceLimit, "", 0, 0, ""},
	}
	last := k123
	for _, s := range steps {
		a := postJSON(t, url, "/_api/cursor", map[string]any{"query": s.query, "bindVars": s.binds})
		got, _ := json.Marshal(a.Result)
		switch {
		case a.Status != s.status || s.num != 0 && a.ErrorNum != s.num:
			t.Errorf("%s: HTTP %d, error %d %q; want HTTP %d, error %d", s.query, a.Status, a.ErrorNum, a.ErrorMessage, s.status, s.num)
		case s.result != "" && (string(got) != s.result || a.Extra.Stats.WritesExecuted != s.exec || a.Extra.Stats.WritesIgnored != s.ignore):
			t.Errorf("%s:\n got %s, %+v\nwant %s, %d/%d", s.query, got, a.Extra.Stats, s.result, s.exec, s.ignore)
		}
		if s.c != "" {
			last = s.c
		}
		if now := contents(t, url, "c"); now != last {
			t.Errorf("%s: c is\n %s, want\n %s", s.query, now, last)
		}
	}
	if d, big := contents(t, url, "d"), contents(t, url, "big"); d != "[]" || big != "[]" {
		t.Errorf("d %s, big %s: want both empty", d, big)
	}
}

// TestAQLWritesDriver: the driver reads a writing query's results and
// its write counts (extra.stats) over both transports.
func TestAQLWritesDriver(t *testing.T) {
	url := serve(t, t.TempDir())
	ctx := context.Background()
	for name, c := range clients(t, url, "root", "secret") {
		t.Run(name, func(t *testing.T) {
			db, err := c.CreateDatabase(ctx, "w-"+name, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.CreateCollectionV2(ctx, "c", nil); err != nil {
				t.Fatal(err)
			}
			cur, err := db.Query(ctx, "FOR i IN 1..5 INSERT {_key: TO_STRING(i), i} INTO c OPTIONS {overwriteMode: 'ignore'} RETURN NEW.i", nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for cur.HasMore() {
				var n int
				if _, err := cur.ReadDocument(ctx, &n); err != nil {
					t.Fatal(err)
				}
				got = append(got, n)
			}
			if st := cur.Statistics(); len(got) != 5 || got[4] != 5 || st.WritesExecutedInt != 5 || st.WritesIgnoredInt != 0 {
				t.Errorf("results %v, stats %+v", got, st)
			}
			cur.Close()
			cur, err = db.Query(ctx, "FOR k IN ['1', 'nope'] REMOVE k IN c OPTIONS {ignoreErrors: true}", nil)
			if err != nil {
				t.Fatal(err)
			}
			if st := cur.Statistics(); cur.HasMore() || st.WritesExecutedInt != 1 || st.WritesIgnoredInt != 1 {
				t.Errorf("remove: has more %v, stats %+v", cur.HasMore(), st)
			}
			cur.Close()
			_, err = db.Query(ctx, "REMOVE 'nope' IN c", nil)
			if !shared.IsArangoErrorWithErrorNum(err, 1202) {
				t.Errorf("a missing document: %v", err)
			}
		})
	}
}
