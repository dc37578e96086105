package aql

import (
	"slices"
	"sort"
	"strings"
)

// collectOp groups rows by the groups' values (the groups come out sorted
// by them, as COLLECT's default method gives), with INTO, WITH COUNT INTO
// and AGGREGATE; afterwards only the variables COLLECT makes are in scope.
func (e *evaluator) collectOp(o *Collect, rows []scope) ([]scope, error) {
	type group struct {
		values []any
		rows   []scope
	}
	var order []*group
	groups := map[string]*group{}
	for _, r := range rows {
		if err := e.step(); err != nil {
			return nil, err
		}
		if err := e.grow(ifaceSize); err != nil { // the row in its group
			return nil, err
		}
		var values []any
		for _, g := range o.Groups {
			v, err := e.eval(g.Value, r)
			if err != nil {
				return nil, err
			}
			values = append(values, v)
		}
		k := canonicalKey(values)
		g, ok := groups[k]
		if !ok {
			if err := e.grow(int64(len(k)) + mapGroup + sizeOf(values)); err != nil {
				return nil, err
			}
			g = &group{values: values}
			groups[k] = g
			order = append(order, g)
		}
		g.rows = append(g.rows, r)
	}
	if len(o.Groups) == 0 && len(order) == 0 && (len(o.Aggregates) > 0 || o.CountInto != "") {
		order = append(order, &group{}) // COLLECT AGGREGATE over nothing still makes one row
	}
	sort.SliceStable(order, func(i, j int) bool { return compare(order[i].values, order[j].values) < 0 })
	out := make([]scope, 0, len(order))
	for _, g := range order {
		if err := e.grow(mapCost(len(o.Groups) + len(o.Aggregates) + 2)); err != nil {
			return nil, err
		}
		row := scope{}
		for i, a := range o.Groups {
			row[a.Var] = g.values[i]
		}
		if o.Into != "" {
			into := make([]any, 0, len(g.rows))
			if err := e.grow(listCost(len(g.rows))); err != nil {
				return nil, err
			}
			for _, r := range g.rows {
				if err := e.step(); err != nil {
					return nil, err
				}
				if o.IntoValue != nil {
					v, err := e.eval(o.IntoValue, r)
					if err != nil {
						return nil, err
					}
					into = append(into, v)
					continue
				}
				if err := e.grow(mapCost(len(r))); err != nil {
					return nil, err
				}
				m := map[string]any{}
				for k, v := range r {
					if !strings.HasPrefix(k, "\x00") && (o.Keep == nil || slices.Contains(o.Keep, k)) {
						m[k] = v
					}
				}
				into = append(into, m)
			}
			row[o.Into] = into
		}
		if o.CountInto != "" {
			row[o.CountInto] = float64(len(g.rows))
		}
		for _, a := range o.Aggregates {
			c, ok := a.Value.(*Call)
			if !ok || len(c.Args) != 1 {
				return nil, &QueryError{1540, "AGGREGATE needs a function of one argument"}
			}
			var values []any
			for _, r := range g.rows {
				if err := e.step(); err != nil {
					return nil, err
				}
				v, err := e.eval(c.Args[0], r)
				if err != nil {
					return nil, err
				}
				values = append(values, v)
			}
			v, err := call(c.Name, []any{values})
			if err != nil {
				return nil, err
			}
			row[a.Var] = v
		}
		out = append(out, row)
	}
	return out, nil
}
