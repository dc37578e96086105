package aql

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/fabricops/fabric/fabric/lib/budget"
)

// memStore is collections in memory that can be written, for the tests
// of the evaluator's writes.
type memStore struct {
	colls  map[string]map[string]map[string]any
	next   int
	writes int // Write calls
}

func newMemStore(src memSource) *memStore {
	m := &memStore{colls: map[string]map[string]map[string]any{}}
	for name, docs := range src {
		m.colls[name] = map[string]map[string]any{}
		for _, d := range docs {
			m.colls[name][d["_key"].(string)] = d
		}
	}
	return m
}

func (m *memStore) Scan(coll string, fn func(map[string]any) bool) error {
	docs, ok := m.colls[coll]
	if !ok {
		return &QueryError{1203, "collection or view not found: " + coll}
	}
	keys := make([]string, 0, len(docs))
	for k := range docs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !fn(docs[k]) {
			break
		}
	}
	return nil
}

func (m *memStore) Write(op WriteOp) ([]WriteResult, error) {
	m.writes++
	docs, ok := m.colls[op.Collection]
	if !ok {
		return nil, &QueryError{1203, "collection or view not found: " + op.Collection}
	}
	out := make([]WriteResult, len(op.Docs))
	for i, d := range op.Docs {
		key, _ := d["_key"].(string)
		old := docs[key]
		if op.Kind == WriteInsert && key == "" {
			m.next++
			key = fmt.Sprint("n", m.next)
		}
		stamp := func(d map[string]any) map[string]any {
			n := map[string]any{}
			for k, v := range d {
				n[k] = v
			}
			m.next++
			n["_key"], n["_id"], n["_rev"] = key, op.Collection+"/"+key, fmt.Sprint("r", m.next)
			return n
		}
		merged := func() map[string]any {
			n := map[string]any{}
			for k, v := range old {
				n[k] = v
			}
			for k, v := range d {
				if v == nil && !op.Options.KeepNull {
					delete(n, k)
				} else {
					n[k] = v
				}
			}
			return n
		}
		var nw map[string]any
		switch {
		case op.Kind == WriteInsert && old == nil:
			nw = stamp(d)
		case op.Kind == WriteInsert && op.Options.OverwriteMode == "ignore":
			out[i] = WriteResult{}
			continue
		case op.Kind == WriteInsert && op.Options.OverwriteMode == "replace", op.Kind == WriteReplace && old != nil:
			nw = stamp(d)
		case op.Kind == WriteInsert && op.Options.OverwriteMode == "update", op.Kind == WriteUpdate && old != nil:
			nw = stamp(merged())
		case op.Kind == WriteInsert:
			out[i] = WriteResult{Err: &QueryError{1210, "unique constraint violated"}}
			continue
		case op.Kind == WriteRemove && old != nil:
			delete(docs, key)
			out[i] = WriteResult{Old: old, Written: true}
			continue
		default:
			out[i] = WriteResult{Err: &QueryError{1202, "document not found"}}
			continue
		}
		docs[key] = nw
		out[i] = WriteResult{Old: old, New: nw, Written: true}
	}
	return out, nil
}

// dump is a collection's documents by key, less _id and _rev, as JSON.
func (m *memStore) dump(coll string) string {
	var parts []string
	_ = m.Scan(coll, func(d map[string]any) bool {
		c := map[string]any{}
		for k, v := range d {
			if k != "_id" && k != "_rev" {
				c[k] = v
			}
		}
		data, _ := json.Marshal(c)
		parts = append(parts, string(data))
		return true
	})
	return "[" + strings.Join(parts, ",") + "]"
}

func base() memSource {
	return memSource{
		"c": {
			{"_key": "a", "n": json.Number("1")},
			{"_key": "b", "n": json.Number("2"), "o": map[string]any{"x": json.Number("1")}},
		},
		"d": {},
	}
}

// TestWrites: data-modification queries on a small store, their results,
// the store after them and their counts, written by hand.
func TestWrites(t *testing.T) {
	for _, c := range []struct {
		src          string
		binds        map[string]any
		want, c      string // the result; c after the query ("" unchanged)
		exec, ignore int64
		calls        int // Write calls
	}{
		{"FOR i IN 1..2 INSERT {_key: CONCAT('k', i), i} INTO c RETURN NEW._key", nil, `["k1","k2"]`,
			`[{"_key":"a","n":1},{"_key":"b","n":2,"o":{"x":1}},{"_key":"k1","i":1},{"_key":"k2","i":2}]`, 2, 0, 1},
		{"INSERT {_key: 'z'} IN @@c", map[string]any{"c": "c"}, `[]`,
			`[{"_key":"a","n":1},{"_key":"b","n":2,"o":{"x":1}},{"_key":"z"}]`, 1, 0, 1},
		{"FOR u IN c UPDATE u WITH {n: u.n + 10} IN c RETURN [OLD.n, NEW.n]", nil, `[[1,11],[2,12]]`,
			`[{"_key":"a","n":11},{"_key":"b","n":12,"o":{"x":1}}]`, 2, 0, 1},
		{"UPDATE {_key: 'a', m: 5} IN c LET o = OLD RETURN o.n", nil, `[1]`,
			`[{"_key":"a","m":5,"n":1},{"_key":"b","n":2,"o":{"x":1}}]`, 1, 0, 1},
		{"UPDATE 'b' WITH {n: null} IN c OPTIONS {keepNull: false} RETURN NEW", nil, `[{"_id":"c/b","_key":"b","_rev":"r1","o":{"x":1}}]`,
			`[{"_key":"a","n":1},{"_key":"b","o":{"x":1}}]`, 1, 0, 1},
		{"REPLACE {_key: 'a', r: 1} IN c RETURN OLD.n", nil, `[1]`,
			`[{"_key":"a","r":1},{"_key":"b","n":2,"o":{"x":1}}]`, 1, 0, 1},
		{"FOR u IN c REMOVE u IN c RETURN OLD._key", nil, `["a","b"]`, `[]`, 2, 0, 1},
		{"FOR k IN ['c/a', {_id: 'c/b'}] REMOVE k IN c RETURN OLD._key", nil, `["a","b"]`, `[]`, 2, 0, 1},
		{"FOR k IN ['a', 'x'] REMOVE k IN c OPTIONS {ignoreErrors: true} RETURN OLD._key", nil, `["a"]`,
			`[{"_key":"b","n":2,"o":{"x":1}}]`, 1, 1, 1},
		{"FOR k IN ['a', 'y'] INSERT {_key: k, v: 1} INTO c OPTIONS {overwriteMode: 'update'} RETURN [OLD.n, NEW.v]", nil, `[[1,1],[null,1]]`,
			`[{"_key":"a","n":1,"v":1},{"_key":"b","n":2,"o":{"x":1}},{"_key":"y","v":1}]`, 2, 0, 1},
		{"INSERT {_key: 'a'} INTO c OPTIONS {overwriteMode: 'ignore'} RETURN NEW", nil, `[null]`, "", 1, 0, 1},
		{"INSERT {_key: 'a', q: 1} INTO c OPTIONS {overwrite: true} RETURN OLD.n", nil, `[1]`,
			`[{"_key":"a","q":1},{"_key":"b","n":2,"o":{"x":1}}]`, 1, 0, 1},
		// UPSERT: both branches, and a row that sees what the row before
		// it inserted.
		{"FOR x IN [1, 2, 9, 9] UPSERT {n: x} INSERT {n: x, c: 1} UPDATE {c: (OLD.c || 0) + 1} IN c RETURN [OLD._key, NEW.c]", nil,
			`[["a",1],["b",1],[null,1],["n1",2]]`,
			`[{"_key":"a","c":1,"n":1},{"_key":"b","c":1,"n":2,"o":{"x":1}},{"_key":"n1","c":2,"n":9}]`, 4, 0, 3},
		{"FOR x IN [2, 5] UPSERT FILTER CURRENT.n >= x && CURRENT.n < x + 1 INSERT {n: x} UPDATE {u: true} IN c RETURN [OLD._key, NEW.n]", nil,
			`[["b",2],[null,5]]`, `[{"_key":"a","n":1},{"_key":"b","n":2,"o":{"x":1},"u":true},{"_key":"n1","n":5}]`, 2, 0, 2},
		{"UPSERT {n: 2} INSERT {} REPLACE {r: OLD.n} IN c RETURN NEW.r", nil, `[2]`,
			`[{"_key":"a","n":1},{"_key":"b","r":2}]`, 1, 0, 1},
		// A subquery that writes, and the query goes on.
		{"LET k = (FOR i IN 1..2 INSERT {i} INTO d RETURN NEW.i) FOR u IN c FILTER u.n == 1 RETURN [u._key, k]", nil, `[["a",[1,2]]]`, "", 2, 0, 1},
	} {
		st := newMemStore(base())
		before := st.dump("c")
		q, err := Parse(c.src)
		if err != nil {
			t.Fatalf("%q: %v", c.src, err)
		}
		got, stats, err := RunStats(q, st, c.binds, nil, Options{})
		if err != nil {
			t.Fatalf("%q: %v", c.src, err)
		}
		data, _ := json.Marshal(got)
		want := c.c
		if want == "" {
			want = before
		}
		if string(data) != c.want || st.dump("c") != want || stats.WritesExecuted != c.exec || stats.WritesIgnored != c.ignore || st.writes != c.calls {
			t.Errorf("%q:\n got %s, c %s, %+v, %d calls\nwant %s, c %s, %d/%d, %d calls", c.src, data, st.dump("c"), stats, st.writes, c.want, want, c.exec, c.ignore, c.calls)
		}
	}
}

// TestWriteErrors: a query whose write fails, or that breaks ArangoDB's
// rules for writes, fails with ArangoDB's error and leaves the store as
// it was (writes made before the failure are undone).
func TestWriteErrors(t *testing.T) {
	for _, c := range []struct {
		src string
		num int
	}{
		{"FOR k IN ['x', 'a'] INSERT {_key: k} INTO c", 1210},
		{"FOR k IN ['a', 'x'] REMOVE k IN c", 1202},
		{"FOR k IN ['a', 'x'] UPDATE k WITH {z: 1} IN c", 1202},
		{"INSERT 5 INTO c", 1227},
		{"UPDATE {z: 1} IN c", 1226},
		{"REMOVE 7 IN c", 1205},
		{"REMOVE 'd/a' IN c", 1205},
		{"INSERT {} INTO nope", 1203},
		{"FOR i IN [] INSERT {} INTO nope", 1203},
		{"LET q = (INSERT {_key: 'q'} INTO d) FOR k IN ['a', 'x'] REMOVE k IN c", 1202},
		{"INSERT {} INTO d INSERT {} INTO c", ErrMultiModify},
		{"FOR u IN c LET x = (UPDATE u WITH {} IN c) RETURN x", ErrAccessAfterModification},
		{"LET x = (INSERT {} INTO c) INSERT {} INTO c", ErrAccessAfterModification},
		{"FOR u IN c REMOVE u IN c FOR v IN c RETURN v", ErrAccessAfterModification},
		{"INSERT {} INTO c RETURN LENGTH(c)", ErrAccessAfterModification},
		{"INSERT {} INTO c LET x = (FOR v IN c RETURN v) RETURN x", ErrAccessAfterModification},
		{"INSERT {} INTO c REMOVE 'a' IN c", ErrMultiModify},
		{"INSERT {} INTO d RETURN DOCUMENT('c/a')", ErrAccessAfterModification},
		{"INSERT {} INTO d FOR v IN 1..2 OUTBOUND 'c/a' e RETURN v", ErrAccessAfterModification},
		{"INSERT {} INTO c OPTIONS {overwriteMode: 'sometimes'}", 10},
		{"INSERT {} INTO c OPTIONS 3", 1575},
		{"UPSERT 3 INSERT {} UPDATE {} IN c", 1227},
	} {
		st := newMemStore(base())
		before, beforeD := st.dump("c"), st.dump("d")
		q, err := Parse(c.src)
		if err != nil {
			t.Fatalf("%q: %v", c.src, err)
		}
		_, _, err = RunStats(q, st, nil, nil, Options{})
		var qe *QueryError
		if !errors.As(err, &qe) || qe.Num != c.num {
			t.Errorf("%q: %v, want error %d", c.src, err, c.num)
		}
		if st.dump("c") != before || st.dump("d") != beforeD {
			t.Errorf("%q: the store changed: c %s, d %s", c.src, st.dump("c"), st.dump("d"))
		}
	}
}

// TestWriteBudget: the documents a write holds are charged: a query
// writing more than its memory allows stops before it writes.
func TestWriteBudget(t *testing.T) {
	st := newMemStore(base())
	q, err := Parse("FOR i IN 1..20000 INSERT {i, pad: '" + strings.Repeat("x", 100) + "'} INTO d")
	if err != nil {
		t.Fatal(err)
	}
	b := budget.New(context.Background(), "query", budget.Limits{Memory: 1 << 20})
	defer b.Close()
	_, _, err = RunStats(q, st, nil, b, Options{})
	var qe *QueryError
	if !errors.As(err, &qe) || qe.Num != ErrResourceLimit {
		t.Fatalf("got %v, want error %d", err, ErrResourceLimit)
	}
	if st.writes != 0 || st.dump("d") != "[]" {
		t.Fatalf("%d writes, d %s", st.writes, st.dump("d"))
	}
}

// TestWriteJournalLimit: what a query keeps to undo its writes counts
// against its memory limit, though its rows let go of the documents: a
// subquery that updates a document again and again stops at the limit,
// and the document is as it was.
func TestWriteJournalLimit(t *testing.T) {
	st := newMemStore(base())
	before := st.dump("c")
	q, err := Parse("FOR i IN 1..40 LET x = (UPDATE 'a' WITH {pad: @pad, i} IN c) RETURN i")
	if err != nil {
		t.Fatal(err)
	}
	b := budget.New(context.Background(), "query", budget.Limits{Memory: 1 << 20})
	defer b.Close()
	_, _, err = RunStats(q, st, map[string]any{"pad": strings.Repeat("x", 64<<10)}, b, Options{})
	var qe *QueryError
	if !errors.As(err, &qe) || qe.Num != ErrResourceLimit || !strings.Contains(qe.Msg, "to undo them") {
		t.Fatalf("got %v, want error %d for what the writes keep", err, ErrResourceLimit)
	}
	if st.dump("c") != before {
		t.Fatalf("c is %s, want %s", st.dump("c"), before)
	}
}

// TestWriteParse: the shapes of the write operations, and their syntax
// errors.
func TestWriteParse(t *testing.T) {
	for _, src := range []string{
		"INSERT {a: 1 IN [1]} INTO c",
		"UPDATE (x IN y) WITH {} IN c OPTIONS {exclusive: true}",
		"FOR u IN c REPLACE u IN c RETURN NEW",
		"UPSERT {a: 1} INSERT {a: 1} UPDATE {} INTO @@c OPTIONS {waitForSync: true}",
		"LET r = (REMOVE 'a' IN c) RETURN r",
		"UPSERT FILTER CURRENT.a == 1 && CURRENT.b IN [1] INSERT {} UPDATE {} IN c",
	} {
		if _, err := Parse(src); err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
	for _, src := range []string{
		"INSERT {} c",
		"INSERT {} INTO 'c'",
		"UPSERT {} INSERT {} IN c",
		"REMOVE 'a' IN c FILTER true",
		"INSERT {} INTO c RETURN",
		"UPDATE 'a' WITH IN c",
	} {
		var se *SyntaxError
		if _, err := Parse(src); !errors.As(err, &se) {
			t.Errorf("%q: %v, want a syntax error", src, err)
		}
	}
}
