package aql

// streamFor runs a FOR followed by FILTERs and LETs and a RETURN one row
// at a time, as ArangoDB's pipeline does: each row goes through the
// FILTERs and LETs and to the RETURN as soon as it is made, and only the
// results stay. A loop over a large range or collection then holds its
// results, not its rows, and a RETURN that waits (SLEEP) runs row by row
// until the query ends or is stopped. (Over a collection, the rows the
// FILTERs keep are made first, as forOp reads them, then returned.) ok is
// false when the operations
// after the FOR are of another shape (a RETURN DISTINCT, a SORT, a LIMIT,
// a COLLECT, another loop...): the stage-by-stage evaluation runs them.
func (e *evaluator) streamFor(o *For, ops []Op, rows []scope) (res []any, ok bool, err error) {
	n := 0
	for n < len(ops) {
		if _, isFilter := ops[n].(*Filter); !isFilter {
			if _, isLet := ops[n].(*Let); !isLet {
				break
			}
		}
		n++
	}
	if n != len(ops)-1 {
		return nil, false, nil
	}
	ret, isReturn := ops[n].(*Return)
	if !isReturn || ret.Distinct {
		return nil, false, nil
	}
	out := []any{}
	if err := e.grow(sliceHeader); err != nil { // the results' list
		return nil, true, err
	}
	// row takes one new row through the FILTERs and LETs to the RETURN,
	// then returns what the row held (the result stays charged). mark
	// is what the query held before the row was made.
	row := func(r scope, mark int64) error {
		if err := e.step(); err != nil {
			return err
		}
		if err := e.grow(mapCost(len(r)) + ifaceSize); err != nil {
			return err
		}
		for _, op := range ops[:n] {
			var kept bool
			var err error
			if r, kept, err = e.inline(op, r); err != nil || !kept {
				if err == nil {
					e.stats.Filtered++
				}
				e.shrink(e.held() - mark) // the row is dropped
				return err
			}
		}
		before := e.held()
		vals, err := e.returnOp(ret, []scope{r})
		if err != nil {
			return err
		}
		out = append(out, vals...)
		// The row goes, its result stays (in out, not in a list of its own).
		e.shrink(before - mark + sliceHeader)
		return nil
	}
	for _, r := range rows {
		if !scansCollection(o, r) {
			if err := e.streamRows(o, r, row); err != nil {
				return nil, true, err
			}
			continue
		}
		// A collection is read as forOp reads it (through an index that
		// serves the FILTERs, if one does), the FILTERs and LETs applied
		// as it goes; then the RETURN.
		mark := e.held()
		kept, err := e.forOp(o, []scope{r}, ops[:n], -1, filtersAhead(ops))
		if err != nil {
			return nil, true, err
		}
		before := e.held()
		vals, err := e.returnOp(ret, kept)
		if err != nil {
			return nil, true, err
		}
		out = append(out, vals...)
		e.shrink(before - mark + sliceHeader)
	}
	return out, true, nil
}

// scansCollection reports whether a FOR reads a collection in row r: a
// name that is not a variable of the row, or a collection bind parameter.
func scansCollection(o *For, r scope) bool {
	switch in := o.In.(type) {
	case *Var:
		_, bound := r[in.Name]
		return !bound
	case *Bind:
		return in.Collection
	}
	return false
}

// streamRows calls fn with each row of a FOR over one input row: the
// numbers of a range (made one at a time) or the elements of an array.
func (e *evaluator) streamRows(o *For, r scope, fn func(row scope, mark int64) error) error {
	if rng, ok := o.In.(*Binary); ok && rng.Op == ".." {
		return e.streamRange(o, rng, r, fn)
	}
	held := e.held()
	v, err := e.eval(o.In, r)
	if err != nil {
		return err
	}
	if _, sub := o.In.(*Subquery); !sub { // a subquery's values live on in the rows
		defer e.shrink(e.held() - held)
	}
	list, ok := v.([]any)
	if !ok {
		if v == nil {
			return nil
		}
		return &QueryError{1563, "invalid argument type in call to FOR: an array or a collection is needed"}
	}
	for _, x := range list {
		if err := fn(r.with(o.Var, x), e.held()); err != nil {
			return err
		}
	}
	return nil
}

// streamRange iterates a FOR over a range (a..b) without making the
// range's list: the loop's run time and steps bound it, not memory.
func (e *evaluator) streamRange(o *For, rng *Binary, r scope, fn func(row scope, mark int64) error) error {
	l, err := e.eval(rng.L, r)
	if err != nil {
		return err
	}
	h, err := e.eval(rng.R, r)
	if err != nil {
		return err
	}
	from, to := int64(number(l)), int64(number(h))
	step := int64(1)
	if from > to {
		step = -1
	}
	for i := from; ; i += step {
		if err := fn(r.with(o.Var, float64(i)), e.held()); err != nil {
			return err
		}
		if i == to {
			return nil
		}
	}
}
