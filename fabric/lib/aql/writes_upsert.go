package aql

// upsert is the pending writes of an UPSERT: each row's insert or update
// (or replace), handed to the Writer together until a row's search could
// see one of them; then they are written first, so that each row sees
// what the rows before it wrote, as ArangoDB's row-by-row UPSERT does.
type upsert struct {
	e       *evaluator
	w       Writer
	o       *Modify
	coll    string
	opts    WriteOptions
	rows    []int            // the rows pending, in order
	items   []map[string]any // their documents
	inserts []bool           // whether each inserts
	errs    []error          // their documents' own errors
	after   []map[string]any // each document as it will be, to match searches
	keys    map[string]bool  // the keys of the documents pending updates
	results []WriteResult    // by row
}

// upsertOp runs an UPSERT over all rows.
func (e *evaluator) upsertOp(w Writer, o *Modify, coll string, opts WriteOptions, rows []scope) ([]scope, error) {
	held := e.held() // the documents are let go once written
	if err := e.grow(listCost(len(rows)) * 4); err != nil {
		return nil, err
	}
	u := &upsert{e: e, w: w, o: o, coll: coll, opts: opts, keys: map[string]bool{}, results: make([]WriteResult, len(rows))}
	for i, r := range rows {
		if err := e.step(); err != nil {
			return nil, err
		}
		if err := u.row(i, r); err != nil {
			return nil, err
		}
	}
	err := u.flush()
	e.shrink(e.held() - held)
	if err != nil {
		return nil, err
	}
	if err := failures(opts, u.results); err != nil {
		return nil, err
	}
	return e.afterWrite(rows, u.results)
}

// row evaluates one row's search, and its insert or update.
func (u *upsert) row(i int, r scope) error {
	e := u.e
	match, err := u.matcher(r)
	if err != nil {
		return err
	}
	for _, d := range u.after {
		ok, err := match(d)
		if err != nil {
			return err
		}
		if ok {
			if err := u.flush(); err != nil {
				return err
			}
			break
		}
	}
	old, err := u.find(match)
	if err != nil {
		return err
	}
	if old != nil && u.keys[toString(old["_key"])] {
		if err := u.flush(); err != nil {
			return err
		}
		if old, err = u.find(match); err != nil {
			return err
		}
	}
	var item, after map[string]any
	var itemErr error
	expr := u.o.Doc
	if old != nil {
		expr = u.o.Update
	}
	x, err := e.eval(expr, r.with("OLD", old))
	if err != nil {
		return err
	}
	doc, ok := x.(map[string]any)
	switch {
	case !ok:
		itemErr = errDocType
	case old == nil:
		item, after = doc, doc
	default:
		item = make(map[string]any, len(doc)+1)
		for k, x := range doc {
			item[k] = x
		}
		item["_key"] = old["_key"]
		after = item
		if !u.o.Replace {
			after = make(map[string]any, len(old)+len(item))
			for k, x := range old {
				after[k] = x
			}
			for k, x := range item {
				after[k] = x
			}
		}
		u.keys[toString(old["_key"])] = true
	}
	if err := e.grow(sizeOf(item) + 4*ifaceSize); err != nil {
		return err
	}
	u.rows = append(u.rows, i)
	u.items = append(u.items, item)
	u.inserts = append(u.inserts, old == nil)
	u.errs = append(u.errs, itemErr)
	if after != nil {
		u.after = append(u.after, after)
	}
	return nil
}

// matcher returns the test of a row's search for a document (as stored,
// or pending): the search object's attributes all equal, or UPSERT
// FILTER's condition true with CURRENT the document.
func (u *upsert) matcher(r scope) (func(map[string]any) (bool, error), error) {
	e := u.e
	if u.o.Filter != nil {
		return func(d map[string]any) (bool, error) {
			held := e.held()
			defer func() { e.shrink(e.held() - held) }() // what the condition made
			v, err := e.eval(u.o.Filter, r.with("CURRENT", normalize(d)))
			return truthy(v), err
		}, nil
	}
	v, err := e.eval(u.o.Key, r)
	if err != nil {
		return nil, err
	}
	search, ok := v.(map[string]any)
	if !ok {
		return nil, &QueryError{1227, "invalid document type: the search of an UPSERT is an object"}
	}
	return func(d map[string]any) (bool, error) { return matches(d, search), nil }, nil
}

// find returns the first document of the collection that match is true
// of, normalized, or nil.
func (u *upsert) find(match func(map[string]any) (bool, error)) (map[string]any, error) {
	var found map[string]any
	var serr error
	err := u.e.src.Scan(u.coll, func(raw map[string]any) bool {
		if serr = u.e.step(); serr != nil {
			return false
		}
		ok, err := match(raw)
		if serr = err; err != nil || !ok {
			return err == nil
		}
		found = normalize(raw).(map[string]any)
		return false
	})
	if err == nil {
		err = serr
	}
	if err == nil && found != nil {
		err = u.e.grow(sizeOf(found))
	}
	return found, err
}

// matches reports whether a document has each of search's attributes.
func matches(d, search map[string]any) bool {
	for k, want := range search {
		if compare(normalize(d[k]), want) != 0 {
			return false
		}
	}
	return true
}

// flush writes the pending inserts, then the pending updates.
func (u *upsert) flush() error {
	if len(u.rows) == 0 {
		return nil
	}
	for _, insert := range []bool{true, false} {
		op := WriteOp{Kind: WriteInsert, Collection: u.coll, Options: u.opts}
		if !insert {
			op.Kind = WriteUpdate
			if u.o.Replace {
				op.Kind = WriteReplace
			}
		} else {
			op.Options.OverwriteMode = "conflict"
		}
		var items []map[string]any
		var errs []error
		var rows []int
		for j, i := range u.rows {
			if u.inserts[j] == insert {
				items, errs, rows = append(items, u.items[j]), append(errs, u.errs[j]), append(rows, i)
			}
		}
		if len(items) == 0 {
			continue
		}
		res, err := u.e.write(u.w, op, items, errs)
		if err != nil {
			return err
		}
		for j, i := range rows {
			u.results[i] = res[j]
		}
		if err := failures(u.opts, res); err != nil {
			return err
		}
	}
	u.rows, u.items, u.inserts, u.errs, u.after = nil, nil, nil, nil, nil
	u.keys = map[string]bool{}
	return nil
}
