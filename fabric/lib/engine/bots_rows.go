package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/fabricops/fabric/fabric/lib/cfxql/cfxarrow"
	"github.com/fabricops/fabric/fabric/lib/frame"
)

// This file holds the dm bots that make, pick and order rows.

func init() {
	register(
		&bot{run: runEmpty, doc: BotDoc{Tag: "@dm:empty",
			Description: "Makes an empty frame (no columns, no rows)."}},
		&bot{run: runAddRow, free: true, doc: BotDoc{Tag: "@dm:addrow",
			Description: "Appends one row to the frame in hand, one parameter per column (new columns are added, missing ones are null). Bare values are typed (93.5 is a number, true a bool, null a null); quoted values are strings.",
			Params:      []ParamDoc{p("<column>", "string", false, "", "the row's value for the column")}}},
		&bot{run: runHead, check: checkNonNeg("n"), doc: BotDoc{Streams: true, Tag: "@dm:head",
			Description: "Keeps the first n rows.",
			Params:      []ParamDoc{p("n", "int", false, "10", "the number of rows")}}},
		&bot{run: runTail, check: checkNonNeg("n"), doc: BotDoc{Tag: "@dm:tail",
			Description: "Keeps the last n rows.",
			Params:      []ParamDoc{p("n", "int", false, "10", "the number of rows")}}},
		&bot{run: runSample, check: checkSample, doc: BotDoc{Tag: "@dm:sample",
			Description: "Keeps a random sample of the rows, without replacement, in their original order. Give n or frac.",
			Params: []ParamDoc{
				p("n", "int", false, "", "the number of rows (all of them when there are fewer)"),
				p("frac", "number", false, "", "the fraction of the rows, from 0 to 1 (rounded to the nearest row)"),
				p("seed", "int", false, "", "the seed of the random choice, for repeatable samples"),
			}}},
		&bot{run: runSort, doc: BotDoc{Tag: "@dm:sort",
			Description: "Sorts the rows by columns (the first first); the sort is stable and puts nulls last.",
			Params: []ParamDoc{
				p("columns", "list", true, "", "the columns to sort by"),
				p("order", "choice", false, "asc", "ascending or descending", "asc", "desc"),
			}}},
		&bot{run: runDedup, doc: BotDoc{Tag: "@dm:dedup",
			Description: "Drops the rows that repeat an earlier row's values of columns, keeping the first.",
			Params:      []ParamDoc{p("columns", "list", false, "", "the columns compared (all when not given)")}}},
		&bot{run: runDropNull, doc: BotDoc{Streams: true, Tag: "@dm:dropnull",
			Description: "Drops the rows with nulls in columns.",
			Params: []ParamDoc{
				p("columns", "list", false, "", "the columns checked (all when not given)"),
				p("how", "choice", false, "any", "drop a row when any of the columns is null, or only when all are", "any", "all"),
			}}},
		&bot{run: runConcat, doc: BotDoc{Tag: "@dm:concat",
			Description: "Appends the rows of datasets to the frame in hand; the result has the union of their columns, nulls filling the gaps.",
			Params:      []ParamDoc{p("names", "list", true, "", "the datasets, in order")}}},
		&bot{run: runFilter, star: true, doc: BotDoc{Streams: true, Tag: "*dm:filter",
			Description: "Keeps the rows matching a CFXQL query, projected by its GET clause if any ('*' keeps every row).",
			Params:      []ParamDoc{p("query", "cfxql", true, "", "the query, such as \"cpu > 90 get host, cpu\"")}}},
	)
}

// missingColumn reports a column the frame lacks.
func missingColumn(param, col string, f *frame.Frame) error {
	cs := f.Columns()
	if len(cs) == 0 {
		return paramErr(param, "no column '%s': the frame has no columns", col)
	}
	return paramErr(param, "no column '%s' (columns: %s)", col, strings.Join(cs, ", "))
}

// positions returns the positions of cols in f; with none, all columns.
func positions(param string, f *frame.Frame, cols []string) ([]int, error) {
	if len(cols) == 0 {
		out := make([]int, f.NumCols())
		for i := range out {
			out[i] = i
		}
		return out, nil
	}
	idx := colIndex(f)
	out := make([]int, len(cols))
	for i, c := range cols {
		j, ok := idx[c]
		if !ok {
			return nil, missingColumn(param, c, f)
		}
		out[i] = j
	}
	return out, nil
}

func checkNonNeg(name string) func(p *params) error {
	return func(p *params) error {
		if p.int(name) < 0 {
			return badParam(name, "must not be negative, not '%s'", p.str(name))
		}
		return nil
	}
}

func runEmpty(r *run, in *frame.Frame, p *params) (*frame.Frame, error) { return emptyFrame(), nil }

func runAddRow(r *run, in *frame.Frame, p *params) (*frame.Frame, error) {
	cols := in.Columns()
	hints := kindsOf(in)
	idx := colIndex(in)
	rows := rowsOf(in)
	row := make([]any, len(cols), len(cols)+len(p.list))
	for _, q := range p.list {
		v := typedValue(q)
		if j, ok := idx[q.Key]; ok {
			row[j] = v
			continue
		}
		idx[q.Key] = len(cols)
		cols = append(cols, q.Key)
		row = append(row, v)
	}
	return build(cols, hints, append(rows, row))
}

func runHead(r *run, in *frame.Frame, p *params) (*frame.Frame, error) {
	return in.Head(p.int("n")), nil
}

func runTail(r *run, in *frame.Frame, p *params) (*frame.Frame, error) {
	return in.Tail(p.int("n")), nil
}

func checkSample(p *params) error {
	switch {
	case p.has("n") == p.has("frac"):
		return badParam("n", "or 'frac' must be given, and not both")
	case p.has("n") && p.int("n") < 0:
		return badParam("n", "must not be negative, not '%s'", p.str("n"))
	case p.has("frac") && (p.float("frac") < 0 || p.float("frac") > 1):
		return badParam("frac", "must be from 0 to 1, not '%s'", p.str("frac"))
	}
	return nil
}

func runSample(r *run, in *frame.Frame, p *params) (*frame.Frame, error) {
	rows := in.NumRows()
	k := 0
	if p.has("n") {
		k = min(p.int("n"), rows)
	} else {
		k = int(math.Round(p.float("frac") * float64(rows)))
	}
	var rng *rand.Rand
	if p.has("seed") {
		s := uint64(int64(p.int("seed")))
		rng = rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15))
	} else {
		rng = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	pick := rng.Perm(rows)[:k]
	sort.Ints(pick)
	return in.Take(pick), nil
}

func runSort(r *run, in *frame.Frame, p *params) (*frame.Frame, error) {
	cols := p.cols("columns")
	if _, err := positions("columns", in, cols); err != nil {
		return nil, err
	}
	return in.Sort(cols, p.str("order") == "desc")
}

// rowKey joins the keys of a row's values at positions.
func rowKey(row []any, pos []int) string {
	var b strings.Builder
	for _, j := range pos {
		if row[j] == nil {
			b.WriteString("\x01")
		} else {
			b.WriteString(key(row[j]))
		}
		b.WriteByte(0)
	}
	return b.String()
}

func runDedup(r *run, in *frame.Frame, p *params) (*frame.Frame, error) {
	pos, err := positions("columns", in, p.cols("columns"))
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var keep []int
	for i := 0; i < in.NumRows(); i++ {
		k := rowKey(in.Row(i), pos)
		if !seen[k] {
			seen[k] = true
			keep = append(keep, i)
		}
	}
	if len(keep) == in.NumRows() {
		return in, nil
	}
	return in.Take(keep), nil
}

func runDropNull(r *run, in *frame.Frame, p *params) (*frame.Frame, error) {
	pos, err := positions("columns", in, p.cols("columns"))
	if err != nil {
		return nil, err
	}
	all := p.str("how") == "all"
	var keep []int
	for i := 0; i < in.NumRows(); i++ {
		row := in.Row(i)
		nulls := 0
		for _, j := range pos {
			if row[j] == nil {
				nulls++
			}
		}
		drop := nulls > 0
		if all {
			drop = len(pos) > 0 && nulls == len(pos)
		}
		if !drop {
			keep = append(keep, i)
		}
	}
	if len(keep) == in.NumRows() {
		return in, nil
	}
	return in.Take(keep), nil
}

func runConcat(r *run, in *frame.Frame, p *params) (*frame.Frame, error) {
	fs := []*frame.Frame{in}
	rows, bytes := int64(in.NumRows()), heldBytes(in)
	for _, name := range p.cols("names") {
		f, err := r.load("names", name)
		if err != nil {
			return nil, err
		}
		fs = append(fs, f)
		// The same dataset named a thousand times is a thousand copies:
		// counted before they are joined.
		rows, bytes = rows+int64(f.NumRows()), bytes+heldBytes(f)
		if l := r.e.Limits; l.MaxRows > 0 && rows > l.MaxRows {
			return nil, r.overRows(rows)
		}
		if err := r.fits(bytes); err != nil {
			return nil, err
		}
	}
	return concat(fs...)
}

func runFilter(r *run, in *frame.Frame, p *params) (*frame.Frame, error) {
	q, err := r.filterQuery(p)
	if err != nil {
		return nil, err
	}
	return q.Filter(in)
}

// filterQuery parses a filter step's query, evaluated against the run's
// clock.
func (r *run) filterQuery(p *params) (*cfxarrow.Query, error) {
	q, err := cfxarrow.Parse(p.query)
	if err != nil {
		return nil, fmt.Errorf("invalid query: %w", err)
	}
	return q.WithNow(r.e.now()), nil
}
