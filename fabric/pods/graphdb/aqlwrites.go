package graphdb

import (
	"errors"

	"github.com/fabricops/fabric/fabric/lib/aql"
	"github.com/fabricops/fabric/fabric/lib/graphstore"
)

// queryWriter is where a query's writes go: a transaction, the request's
// own (x-arango-trx-id) or one the query runs in, so that its writes are
// all written or none, and seen by no one else before.
type queryWriter interface {
	InsertAll(db, coll string, docs []any, mode graphstore.OverwriteMode) ([]graphstore.Result, bool, error)
	InsertIf(db, coll string, docs []any, mode graphstore.OverwriteMode, keepNull, mergeObjects bool, pre graphstore.Precondition) ([]graphstore.Result, error)
	ModifyIf(db, coll string, items []any, replace, keepNull, mergeObjects bool, pre graphstore.Precondition) ([]graphstore.Result, error)
	RemoveIf(db, coll string, items []any, pre graphstore.Precondition) ([]graphstore.Result, error)
}

// Write makes the writes of one of a query's data-modification
// operations (aql.Writer): all its documents in one store batch, each
// with its result. An insert that does not ignore errors is all or
// nothing (a failed document leaves the collection as it was); updates,
// replaces and removes write the documents that do not fail, and the
// query undoes them when one does.
func (s storeSource) Write(op aql.WriteOp) ([]aql.WriteResult, error) {
	items := make([]any, len(op.Docs))
	for i, d := range op.Docs {
		items[i] = d
	}
	o := op.Options
	pre := graphstore.Precondition{Revs: !o.IgnoreRevs}
	var res []graphstore.Result
	var err error
	stored := true // whether the batch was stored
	switch op.Kind {
	case aql.WriteInsert:
		mode := graphstore.OverwriteMode(o.OverwriteMode)
		if mode == "" {
			mode = graphstore.OverwriteConflict
		}
		// InsertAll keeps nulls and merges objects, what only an update
		// reads, and checks no revision.
		if !o.IgnoreErrors && o.IgnoreRevs && (mode != graphstore.OverwriteUpdate || o.KeepNull && o.MergeObjects) {
			res, stored, err = s.w.InsertAll(s.db, op.Collection, items, mode)
		} else {
			res, err = s.w.InsertIf(s.db, op.Collection, items, mode, o.KeepNull, o.MergeObjects, pre)
		}
	case aql.WriteUpdate, aql.WriteReplace:
		res, err = s.w.ModifyIf(s.db, op.Collection, items, op.Kind == aql.WriteReplace, o.KeepNull, o.MergeObjects, pre)
	case aql.WriteRemove:
		res, err = s.w.RemoveIf(s.db, op.Collection, items, pre)
	default:
		return nil, &aql.QueryError{Num: 1540, Msg: "unknown write " + string(op.Kind)}
	}
	if errors.Is(err, graphstore.ErrCollectionNotFound) {
		return nil, &aql.QueryError{Num: 1203, Msg: "AQL: collection or view not found: " + op.Collection + " (while executing)"}
	}
	if err != nil {
		return nil, err
	}
	out := make([]aql.WriteResult, len(items)) // a dropped batch's results stop at its failure
	for i, r := range res {
		out[i] = aql.WriteResult{Old: r.Old, New: r.New, Written: stored && r.Err == nil && !r.Ignored}
		if r.Err != nil {
			e := docError(r.Err)
			status := e.status
			if e.num == 1200 {
				status = 409 // a query's conflict, not a failed If-Match
			}
			out[i].Err = newError(status, e.num, "AQL: "+e.msg+" (while executing)")
		}
	}
	return out, nil
}
