package aql

import (
	"fmt"
	"strings"

	"github.com/fabricops/fabric/fabric/lib/budget"
)

// Writer is a Source that can also write: what a query's INSERT, UPDATE,
// REPLACE, REMOVE and UPSERT hand their documents to, all the rows of one
// operation at once.
type Writer interface {
	// Write makes op's writes, one per document of op.Docs, and returns
	// their results in the same order. The error is the whole operation's
	// (a missing collection, the disk); a document's own failure is its
	// result's Err.
	Write(op WriteOp) ([]WriteResult, error)
}

// WriteOp is the writes of one data-modification operation into one
// collection.
type WriteOp struct {
	// Kind is WriteInsert, WriteUpdate, WriteReplace or WriteRemove
	// (an UPSERT is handed over as inserts and updates or replaces).
	Kind       WriteKind
	Collection string
	// Docs are the documents: to insert; each with its _key, the patch
	// or the new content for an update or replace; for a remove, {_key}
	// (and the _rev the document must have, when IgnoreRevs is off).
	Docs    []map[string]any
	Options WriteOptions
}

// WriteOptions are a data-modification operation's OPTIONS.
type WriteOptions struct {
	// IgnoreErrors makes a document's failure skip that document (it is
	// counted in writesIgnored) instead of failing the query.
	IgnoreErrors bool
	// KeepNull (default true) keeps the null attributes of an update's
	// patch; off, they remove the attribute.
	KeepNull bool
	// MergeObjects (default true) merges an update's object attributes
	// with the stored ones; off, they replace them.
	MergeObjects bool
	// OverwriteMode is what an insert does to an existing key: "conflict"
	// (the default: a unique constraint error), "ignore", "replace" or
	// "update".
	OverwriteMode string
	// IgnoreRevs (default true) ignores the _rev of the documents; off,
	// a document's _rev must be the stored one.
	IgnoreRevs bool
	// WaitForSync and Exclusive are accepted: every write is synced, and
	// each operation's writes are one batch.
	WaitForSync, Exclusive bool
}

// WriteResult is what a write did to one document.
type WriteResult struct {
	// Old is the document before the write (nil for a new one), New
	// after it (nil for a remove).
	Old, New map[string]any
	// Written reports whether the document's write is stored; false with
	// Err, or when the writer stored none of the operation's writes.
	Written bool
	// Err is the document's failure.
	Err error
}

// RunStats is RunWithin with options, also returning what the query did
// (its reads and its writes). When the query fails after some of its
// writes were stored, they are undone (best effort: through the same
// Writer, as new writes), so that a failed query leaves its collections
// as they were.
func RunStats(q *Query, src Source, binds map[string]any, b *budget.Budget, opts Options) ([]any, Stats, error) {
	ws := &writeState{old: names(q, "OLD"), new: names(q, "NEW")}
	res, st, err := run(q, src, binds, b, opts, ws)
	st.WritesExecuted, st.WritesIgnored = ws.stats.WritesExecuted, ws.stats.WritesIgnored
	if err != nil {
		if w, ok := src.(Writer); ok {
			ws.undo(w)
		}
		return nil, st, killed(err)
	}
	return res, st, nil
}

// names reports whether a variable of that name appears in a query.
func names(x any, name string) bool {
	if v, ok := x.(*Var); ok {
		return v.Name == name
	}
	if q, ok := x.(*Query); ok {
		for _, op := range q.Ops {
			if names(op, name) {
				return true
			}
		}
		return false
	}
	found := false
	walk(x, func(child any) { found = found || names(child, name) })
	return found
}

// writeState is what a query's writes did: their counts, and the writes
// stored, to undo them if the query fails.
type writeState struct {
	stats    Stats
	journal  []journalEntry
	bytes    int64 // what the journal holds, by sizeOf
	old, new bool  // whether the query names OLD, NEW: else rows go on without
}

// keep counts what the journal holds of written: it lives as long as the
// query, whatever its rows hold, so the journal and what the query holds
// together stay within the query's memory limit.
func (ws *writeState) keep(e *evaluator, written []undoItem) error {
	for _, u := range written {
		ws.bytes += sizeOf(u.old) + stringHead + int64(len(u.key)) + 2*ifaceSize
	}
	limit := e.b.Limits().Memory
	if held := e.held(); limit > 0 && ws.bytes+held > limit {
		return &QueryError{ErrResourceLimit, fmt.Sprintf("AQL: query would use more memory than allowed: its writes keep %s to undo them if it fails, and it holds %s, over its limit of %s (while executing)",
			budget.Bytes(ws.bytes), budget.Bytes(held), budget.Bytes(limit))}
	}
	return nil
}

// journalEntry is the writes one operation stored into a collection.
type journalEntry struct {
	coll  string
	items []undoItem
}

// undoItem is what undoes one write: the document before it, or the key
// of the document it made.
type undoItem struct {
	old map[string]any
	key string
}

// modifyOp runs a data-modification operation over all rows: their
// documents go to the Writer in one operation; each row that was written
// goes on with OLD and NEW.
func (e *evaluator) modifyOp(o *Modify, rows []scope) ([]scope, error) {
	w, ok := e.src.(Writer)
	if !ok {
		return nil, &QueryError{1540, "this store cannot write"}
	}
	coll, err := e.collectionOf(o.Collection)
	if err != nil {
		return nil, err
	}
	// A missing collection is the query's error even with no rows to
	// write, as ArangoDB finds it before it runs.
	if err := e.src.Scan(coll, func(map[string]any) bool { return false }); err != nil {
		return nil, err
	}
	opts, err := e.writeOptions(o.Options)
	if err != nil {
		return nil, err
	}
	if o.Kind == WriteUpsert {
		return e.upsertOp(w, o, coll, opts, rows)
	}
	held := e.held() // the documents are let go once written
	items := make([]map[string]any, len(rows))
	errs := make([]error, len(rows))
	if err := e.grow(listCost(len(rows)) * 2); err != nil {
		return nil, err
	}
	for i, r := range rows {
		if err := e.step(); err != nil {
			return nil, err
		}
		if items[i], errs[i], err = e.writeItem(o, coll, opts, r); err != nil {
			return nil, err
		}
		if err := e.grow(sizeOf(items[i])); err != nil {
			return nil, err
		}
	}
	results, err := e.write(w, WriteOp{Kind: o.Kind, Collection: coll, Options: opts}, items, errs)
	e.shrink(e.held() - held)
	if err != nil {
		return nil, err
	}
	if err := failures(opts, results); err != nil {
		return nil, err
	}
	return e.afterWrite(rows, results)
}

// write hands the items without an error of their own to w, and returns
// the results of all items: the ones written recorded in the journal.
func (e *evaluator) write(w Writer, op WriteOp, items []map[string]any, errs []error) ([]WriteResult, error) {
	results := make([]WriteResult, len(items))
	var idx []int
	for i, it := range items {
		if errs[i] != nil {
			results[i].Err = errs[i]
			continue
		}
		op.Docs = append(op.Docs, it)
		idx = append(idx, i)
	}
	if len(op.Docs) > 0 {
		got, err := w.Write(op)
		if err != nil {
			return nil, err
		}
		if len(got) != len(op.Docs) {
			return nil, &QueryError{4, fmt.Sprintf("internal error: %d results of %d writes", len(got), len(op.Docs))}
		}
		var written []undoItem
		for j, i := range idx {
			results[i] = got[j]
			if got[j].Written {
				u := undoItem{old: got[j].Old}
				if u.old == nil {
					u.key, _ = got[j].New["_key"].(string)
				}
				written = append(written, u)
			}
		}
		if len(written) > 0 && e.writes != nil {
			e.writes.journal = append(e.writes.journal, journalEntry{op.Collection, written})
			if err := e.writes.keep(e, written); err != nil {
				return nil, err
			}
		}
	}
	return results, nil
}

// afterWrite counts the results and makes the rows that go on: each
// written row with OLD and NEW. A failure fails the query unless
// ignoreErrors, when its row is dropped.
func (e *evaluator) afterWrite(rows []scope, results []WriteResult) ([]scope, error) {
	var st Stats
	out := make([]scope, 0, len(rows))
	for i, res := range results {
		if res.Err != nil {
			st.WritesIgnored++
			continue
		}
		st.WritesExecuted++ // overwriteMode ignore's too, as ArangoDB counts it
		if e.writes == nil || !e.writes.old && !e.writes.new {
			out = append(out, rows[i]) // no one reads OLD or NEW
			continue
		}
		var old, nw any
		if res.Old != nil && e.writes.old {
			old = normalize(res.Old)
		}
		if res.New != nil && e.writes.new {
			nw = normalize(res.New)
		}
		if err := e.grow(sizeOf(old) + sizeOf(nw) + mapCost(len(rows[i])+2)); err != nil {
			return nil, err
		}
		r := make(scope, len(rows[i])+2)
		for k, v := range rows[i] {
			r[k] = v
		}
		r["OLD"], r["NEW"] = old, nw
		out = append(out, r)
	}
	if e.writes != nil {
		e.writes.stats.WritesExecuted += st.WritesExecuted
		e.writes.stats.WritesIgnored += st.WritesIgnored
	}
	return out, nil
}

// failures returns the first error of results, when the operation does
// not ignore errors.
func failures(opts WriteOptions, results []WriteResult) error {
	if opts.IgnoreErrors {
		return nil
	}
	for _, r := range results {
		if r.Err != nil {
			return r.Err
		}
	}
	return nil
}

// collectionOf is the name of an operation's collection.
func (e *evaluator) collectionOf(x Expr) (string, error) {
	switch c := x.(type) {
	case *Var:
		return c.Name, nil
	case *Bind:
		if name, ok := e.binds[c.Name].(string); ok && name != "" {
			return name, nil
		}
		return "", &QueryError{1553, fmt.Sprintf("bind parameter '@%s' has an invalid value or type", c.Name)}
	}
	return "", &QueryError{1540, "a collection is needed"}
}

// writeOptions reads an operation's OPTIONS (constants and bind
// parameters: they see no row).
func (e *evaluator) writeOptions(x Expr) (WriteOptions, error) {
	o := WriteOptions{KeepNull: true, MergeObjects: true, IgnoreRevs: true, OverwriteMode: "conflict"}
	if x == nil {
		return o, nil
	}
	v, err := e.eval(x, scope{})
	if err != nil {
		return o, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return o, &QueryError{1575, "query options must be an object"}
	}
	flag := func(name string, into *bool) {
		if b, ok := m[name].(bool); ok {
			*into = b
		}
	}
	flag("ignoreErrors", &o.IgnoreErrors)
	flag("keepNull", &o.KeepNull)
	flag("mergeObjects", &o.MergeObjects)
	flag("ignoreRevs", &o.IgnoreRevs)
	flag("waitForSync", &o.WaitForSync)
	flag("exclusive", &o.Exclusive)
	if b, ok := m["overwrite"].(bool); ok && b {
		o.OverwriteMode = "replace"
	}
	if mode, ok := m["overwriteMode"]; ok {
		s, _ := mode.(string)
		switch s {
		case "conflict", "ignore", "replace", "update":
			o.OverwriteMode = s
		default:
			return o, &QueryError{10, fmt.Sprintf("bad parameter: invalid overwriteMode %s: it is one of conflict, ignore, replace, update", toString(mode))}
		}
	}
	return o, nil
}

// The errors of a document a write cannot be made of, before the store
// sees it.
var (
	errDocType    = &QueryError{1227, "invalid document type"}
	errKeyMissing = &QueryError{1226, "document key missing"}
	errHandle     = &QueryError{1205, "illegal document identifier"}
)

// writeItem evaluates a row's document for an INSERT, UPDATE, REPLACE or
// REMOVE. A document the write cannot be made of is the item's error (the
// query's unless ignoreErrors); err is the evaluation's.
func (e *evaluator) writeItem(o *Modify, coll string, opts WriteOptions, r scope) (item map[string]any, itemErr, err error) {
	var key string
	if o.Key != nil {
		k, err := e.eval(o.Key, r)
		if err != nil {
			return nil, nil, err
		}
		switch x := k.(type) {
		case string:
			var ok bool
			if key, ok = keyOf(x, coll); !ok {
				return nil, errHandle, nil
			}
		case map[string]any:
			s, ok := x["_key"].(string)
			if !ok {
				id, isID := x["_id"].(string)
				if s, ok = keyOf(id, coll); !isID || !ok || !strings.Contains(id, "/") {
					return nil, errKeyMissing, nil
				}
			}
			key = s
			if o.Kind == WriteRemove && !opts.IgnoreRevs {
				if rev, ok := x["_rev"].(string); ok {
					return map[string]any{"_key": key, "_rev": rev}, nil, nil
				}
			}
		default:
			return nil, errHandle, nil
		}
		if o.Kind == WriteRemove {
			return map[string]any{"_key": key}, nil, nil
		}
	}
	v, err := e.eval(o.Doc, r)
	if err != nil {
		return nil, nil, err
	}
	doc, ok := v.(map[string]any)
	if !ok {
		return nil, errDocType, nil
	}
	if o.Kind == WriteInsert {
		return doc, nil, nil
	}
	out := make(map[string]any, len(doc)+1)
	for k, x := range doc {
		out[k] = x
	}
	if o.Key != nil {
		out["_key"] = key
	} else if _, ok := out["_key"].(string); !ok {
		return nil, errKeyMissing, nil
	}
	return out, nil, nil
}

// keyOf is the key a string names in a collection: the string, or the
// key of an _id of that collection (ok false for another's).
func keyOf(s, coll string) (string, bool) {
	c, k, isID := strings.Cut(s, "/")
	if !isID {
		return s, true
	}
	return k, c == coll
}

// undo takes back the writes the journal holds, the last first: a
// removed document is inserted again, a changed one replaced by what it
// was, a new one removed (restores first: of one key's writes in one
// operation, the first tells what the key was). Best effort: its own failures are not reported.
func (ws *writeState) undo(w Writer) {
	opts := WriteOptions{IgnoreErrors: true, KeepNull: true, MergeObjects: true, IgnoreRevs: true, OverwriteMode: "replace"}
	for i := len(ws.journal) - 1; i >= 0; i-- {
		j := ws.journal[i]
		var remove, restore []map[string]any
		for k := len(j.items) - 1; k >= 0; k-- {
			switch u := j.items[k]; {
			case u.old != nil:
				restore = append(restore, u.old)
			case u.key != "":
				remove = append(remove, map[string]any{"_key": u.key})
			}
		}
		if len(restore) > 0 {
			_, _ = w.Write(WriteOp{Kind: WriteInsert, Collection: j.coll, Docs: restore, Options: opts})
		}
		if len(remove) > 0 {
			_, _ = w.Write(WriteOp{Kind: WriteRemove, Collection: j.coll, Docs: remove, Options: opts})
		}
	}
	ws.journal = nil
}
