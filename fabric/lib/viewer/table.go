// Package viewer is the terminal's table viewer: a full-screen view of a
// table of any length that scrolls by row and page, moves by column,
// sorts by a column, filters with a CFXQL query, jumps to a row and
// summarises a column. It reads lazily: a Parquet table is read by row
// group, only the rows on the screen (and a page or two around them);
// sorting reads the sort column alone and filtering the query's columns
// alone, in the background, cancellable.
package viewer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/fabricops/fabric/fabric/lib/lazy"
)

// Table is what the viewer shows: columns, rows by index, and the
// columns' batches from the first row.
type Table interface {
	// Columns returns the table's columns and their types.
	Columns() []frame.DType
	// Rows returns the number of rows, or -1 while it is not known yet
	// (a table read as it is shown).
	Rows() int64
	// Fetch returns the cells of the rows idx (increasing row indices,
	// each below Rows), one slice of cells per row, in idx's order.
	Fetch(ctx context.Context, idx []int64) ([][]string, error)
	// Scan streams the columns cols of every row, in order.
	Scan(ctx context.Context, cols []string) (frame.Source, error)
	// Note says what the viewer should know of the table ("" or, say,
	// that it shows the first rows only).
	Note() string
	// Close releases what the table holds.
	Close()
}

// Open returns the Table of a lazy table: by row group when it is a
// plain Parquet input (a dataset, a job's output, a local Parquet file),
// else read into memory as it is shown, at most maxRows rows.
func Open(ctx context.Context, t *lazy.Table, maxRows int64) (Table, error) {
	if t.Plain() {
		starts, cols, err := layout(ctx, t.Input())
		if err != nil {
			return nil, err
		}
		if starts != nil && len(cols) > 0 {
			return &groupTable{in: t.Input(), cols: cols, starts: starts, where: cheapest(cols)}, nil
		}
	}
	src, err := t.Open(ctx)
	if err != nil {
		return nil, err
	}
	return newMemTable(src, maxRows), nil
}

// FromFrame returns the Table of rows in memory.
func FromFrame(f *frame.Frame) Table {
	m := &memTable{schema: f.Schema(), done: make(chan struct{})}
	for _, r := range f.Records() {
		r.Retain()
		m.add(r)
	}
	close(m.done)
	return m
}

// layout returns the first row of each row group of a Parquet input and
// its row count last (nil when the input is not read by row group), and
// its columns, from its footer.
func layout(ctx context.Context, in lazy.Input) ([]int64, []frame.DType, error) {
	starts := []int64{0}
	src, err := in.Open(ctx, frame.Scan{Keep: func(rg frame.RowGroupStats) bool {
		starts = append(starts, starts[len(starts)-1]+rg.Rows)
		return false
	}})
	if err != nil {
		return nil, nil, err
	}
	defer src.Close()
	if len(starts) == 1 {
		return nil, nil, nil
	}
	return starts, frame.DTypes(src.Schema()), nil
}

// cheapest returns the column a row-group read decodes whole to pick its
// rows: a fixed-width one when there is one.
func cheapest(cols []frame.DType) string {
	for _, c := range cols {
		switch c.DType {
		case "int64", "int32", "float64", "float32", "bool", "datetime64[ns]", "uint64", "int8", "int16", "uint8", "uint16", "uint32":
			return c.Column
		}
	}
	return cols[0].Column
}

// groupTable reads a Parquet input by row group: the rows of a group
// that are asked for, the others skipped.
type groupTable struct {
	in     lazy.Input
	cols   []frame.DType
	starts []int64 // first row of each group, then the row count
	where  string
}

func (g *groupTable) Columns() []frame.DType { return g.cols }
func (g *groupTable) Rows() int64            { return g.starts[len(g.starts)-1] }
func (g *groupTable) Note() string           { return "" }
func (g *groupTable) Close()                 {}

func (g *groupTable) Scan(ctx context.Context, cols []string) (frame.Source, error) {
	return g.in.Open(ctx, frame.Scan{Columns: cols})
}

// fetchWorkers bounds the row groups read at once.
const fetchWorkers = 4

func (g *groupTable) Fetch(ctx context.Context, idx []int64) ([][]string, error) {
	out := make([][]string, len(idx))
	type part struct{ group, from, to int } // idx[from:to] are in group
	var parts []part
	for i := 0; i < len(idx); {
		grp := sort.Search(len(g.starts)-1, func(k int) bool { return g.starts[k+1] > idx[i] })
		j := i
		for j < len(idx) && idx[j] < g.starts[grp+1] {
			j++
		}
		parts = append(parts, part{grp, i, j})
		i = j
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		ferr error
		sem  = make(chan struct{}, fetchWorkers)
	)
	for _, p := range parts {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			offs := make([]int64, p.to-p.from)
			for k := range offs {
				offs[k] = idx[p.from+k] - g.starts[p.group]
			}
			rows, err := g.readGroup(ctx, p.group, offs)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				ferr = errors.Join(ferr, err)
				return
			}
			copy(out[p.from:p.to], rows)
		}()
	}
	wg.Wait()
	return out, ferr
}

// readGroup returns the cells of the rows offs (increasing, within the
// group) of row group grp.
func (g *groupTable) readGroup(ctx context.Context, grp int, offs []int64) ([][]string, error) {
	seen := 0
	var base int64 // the first row of the batch Where is given
	src, err := g.in.Open(ctx, frame.Scan{
		Keep: func(frame.RowGroupStats) bool {
			seen++
			return seen-1 == grp
		},
		WhereColumns: []string{g.where},
		Where: func(rec arrow.Record) ([]int32, bool, error) {
			n := rec.NumRows()
			lo := sort.Search(len(offs), func(k int) bool { return offs[k] >= base })
			var sel []int32
			for k := lo; k < len(offs) && offs[k] < base+n; k++ {
				sel = append(sel, int32(offs[k]-base))
			}
			base += n
			return sel, false, nil
		},
	})
	if err != nil {
		return nil, err
	}
	defer src.Close()
	rows, err := readCells(src)
	if err == nil && len(rows) != len(offs) {
		err = fmt.Errorf("row group %d gave %d rows of the %d asked", grp, len(rows), len(offs))
	}
	return rows, err
}

// readCells reads every row of src as cells.
func readCells(src frame.Source) ([][]string, error) {
	var rows [][]string
	for {
		rec, err := src.Next()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return nil, err
		}
		rows = appendCells(rows, rec, 0, int(rec.NumRows()))
		rec.Release()
	}
}

// appendCells appends the cells of rows [from, to) of rec to rows.
func appendCells(rows [][]string, rec arrow.Record, from, to int) [][]string {
	for i := from; i < to; i++ {
		row := make([]string, rec.NumCols())
		for c := range row {
			row[c] = frame.Cell(rec.Column(c), i)
		}
		rows = append(rows, row)
	}
	return rows
}

// memTable holds a table's batches in memory: a frame's, or a stream's,
// read in the background as the viewer shows the first rows.
type memTable struct {
	schema *arrow.Schema
	mu     sync.Mutex
	recs   []arrow.Record
	starts []int64 // first row of each batch, then the rows so far
	done   chan struct{}
	note   string
	err    error
	stop   context.CancelFunc
}

func newMemTable(src frame.Source, maxRows int64) *memTable {
	ctx, cancel := context.WithCancel(context.Background())
	m := &memTable{schema: src.Schema(), done: make(chan struct{}), stop: cancel}
	go func() {
		defer close(m.done)
		defer src.Close()
		for ctx.Err() == nil {
			rec, err := src.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				m.mu.Lock()
				m.err = err
				m.mu.Unlock()
				return
			}
			if left := maxRows - m.count(); rec.NumRows() >= left {
				cut := rec.NewSlice(0, left)
				rec.Release()
				m.add(cut)
				m.mu.Lock()
				m.note = fmt.Sprintf("the first %d rows (the viewer's limit for a table read into memory)", maxRows)
				m.mu.Unlock()
				return
			}
			m.add(rec)
		}
	}()
	return m
}

func (m *memTable) add(rec arrow.Record) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.starts) == 0 {
		m.starts = []int64{0}
	}
	m.recs = append(m.recs, rec)
	m.starts = append(m.starts, m.starts[len(m.starts)-1]+rec.NumRows())
}

func (m *memTable) count() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.starts) == 0 {
		return 0
	}
	return m.starts[len(m.starts)-1]
}

func (m *memTable) Columns() []frame.DType { return frame.DTypes(m.schema) }

// Rows returns the count once the whole table is read, -1 before.
func (m *memTable) Rows() int64 {
	select {
	case <-m.done:
		return m.count()
	default:
		return -1
	}
}

// Loaded returns the rows read so far.
func (m *memTable) Loaded() int64 { return m.count() }

func (m *memTable) Note() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return "reading stopped: " + m.err.Error()
	}
	return m.note
}

func (m *memTable) Close() {
	if m.stop != nil {
		m.stop()
	}
	<-m.done
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range m.recs {
		r.Release()
	}
	m.recs = nil
}

func (m *memTable) Fetch(ctx context.Context, idx []int64) ([][]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([][]string, 0, len(idx))
	for _, i := range idx {
		if len(m.starts) == 0 || i >= m.starts[len(m.starts)-1] {
			return nil, fmt.Errorf("row %d is not read yet", i)
		}
		b := sort.Search(len(m.recs), func(k int) bool { return m.starts[k+1] > i })
		out = appendCells(out, m.recs[b], int(i-m.starts[b]), int(i-m.starts[b])+1)
	}
	return out, nil
}

// Scan waits for the whole table to be read, then streams its columns.
func (m *memTable) Scan(ctx context.Context, cols []string) (frame.Source, error) {
	select {
	case <-m.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	idx := make([]int, len(cols))
	fields := make([]arrow.Field, len(cols))
	for k, c := range cols {
		j := m.schema.FieldIndices(c)
		if len(j) == 0 {
			return nil, fmt.Errorf("unknown column '%s'", c)
		}
		idx[k], fields[k] = j[0], m.schema.Field(j[0])
	}
	m.mu.Lock()
	recs := slices.Clone(m.recs)
	m.mu.Unlock()
	return &memScan{schema: arrow.NewSchema(fields, nil), recs: recs, idx: idx}, nil
}

// memScan streams some columns of batches in memory.
type memScan struct {
	schema *arrow.Schema
	recs   []arrow.Record
	idx    []int
}

func (s *memScan) Schema() *arrow.Schema { return s.schema }
func (s *memScan) Close() error          { return nil }

func (s *memScan) Next() (arrow.Record, error) {
	if len(s.recs) == 0 {
		return nil, io.EOF
	}
	rec := s.recs[0]
	s.recs = s.recs[1:]
	arrs := make([]arrow.Array, len(s.idx))
	for k, j := range s.idx {
		arrs[k] = rec.Column(j)
	}
	return arrayRecord(s.schema, arrs, rec.NumRows()), nil
}
