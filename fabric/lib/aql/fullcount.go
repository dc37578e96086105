package aql

// FullCount counts, for ArangoDB's fullCount option, the rows that reach
// a query's last top-level LIMIT: what the query would return without
// that LIMIT.
type FullCount struct {
	rows    int
	limited bool // the LIMIT ran
}

// CountFull asks the next run of q to count the rows that reach its last
// top-level LIMIT (the LIMIT then reads all of its rows, as ArangoDB's
// does with fullCount). It returns the count to read after the run.
func (q *Query) CountFull() *FullCount {
	f := &FullCount{}
	for i := len(q.Ops) - 1; i >= 0; i-- {
		if l, ok := q.Ops[i].(*Limit); ok {
			l.full = f
			break
		}
	}
	return f
}

// Of returns the full count of a run that returned results rows: the
// rows that reached the LIMIT, or the results when no LIMIT ran.
func (f *FullCount) Of(results int) int {
	if f == nil || !f.limited {
		return results
	}
	return max(f.rows, results)
}

// reached notes the rows that reach a counting LIMIT (nil: the LIMIT does
// not count).
func (f *FullCount) reached(rows int) {
	if f != nil {
		f.rows, f.limited = rows, true
	}
}
