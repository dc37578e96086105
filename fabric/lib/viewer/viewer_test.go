package viewer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/fabricops/fabric/fabric/lib/lazy"
)

var sites = []string{"nyc", "lon", "sfo"}

// writeTable writes n rows (id, site, cpu; cpu null every 10th row) as
// Parquet in row groups of group rows, and returns the file's path.
func writeTable(t *testing.T, n, group int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "site", Type: arrow.BinaryTypes.String},
		{Name: "cpu", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	}, nil)
	w, err := pqarrow.NewFileWriter(schema, f, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(int64(group))), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i := range n {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.StringBuilder).Append(sites[i%3])
		if i%10 == 9 {
			b.Field(2).AppendNull()
		} else {
			b.Field(2).(*array.Float64Builder).Append(float64((i * 37) % 100))
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// cellsOf returns the cells the tests expect of row i.
func cellsOf(i int) []string {
	cpu := fmt.Sprint(float64((i*37)%100)) + ".0"
	if i%10 == 9 {
		cpu = "NaN"
	}
	return []string{fmt.Sprint(i), sites[i%3], cpu}
}

// tables returns the same rows as a table read by row group, one read
// into memory as it streams, and one of a frame in memory.
func tables(t *testing.T, n int) map[string]Table {
	t.Helper()
	ctx := context.Background()
	path := writeTable(t, n, 100)
	byGroup, err := Open(ctx, lazy.New(lazy.NewFile(path, frame.Auto)), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := byGroup.(*groupTable); !ok {
		t.Fatalf("a Parquet file is not read by row group: %T", byGroup)
	}
	// A head makes the plan not plain: it streams into memory.
	streamed, err := Open(ctx, lazy.New(lazy.NewFile(path, frame.Auto)).Head(n), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	f, err := frame.Read(path, frame.Auto)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]Table{"by row group": byGroup, "streamed": streamed, "frame": FromFrame(f)}
	t.Cleanup(func() {
		for _, tb := range out {
			tb.Close()
		}
		f.Release()
	})
	return out
}

func TestFetch(t *testing.T) {
	const n = 1000
	for name, tb := range tables(t, n) {
		t.Run(name, func(t *testing.T) {
			if _, err := tb.Scan(context.Background(), nil); err != nil {
				t.Fatal(err) // waits for a streamed table to be read
			}
			if got := tb.Rows(); got != n {
				t.Fatalf("Rows = %d, want %d", got, n)
			}
			idx := []int64{0, 1, 99, 100, 101, 250, 731, 999}
			rows, err := tb.Fetch(context.Background(), idx)
			if err != nil {
				t.Fatal(err)
			}
			for k, i := range idx {
				if want := cellsOf(int(i)); !slices.Equal(rows[k], want) {
					t.Errorf("row %d = %q, want %q", i, rows[k], want)
				}
			}
		})
	}
}

func TestCompute(t *testing.T) {
	const n = 1000
	ids := func(v view) []int32 { return v.rows }
	// want computes the expected rows in Go.
	all := make([]int32, n)
	for i := range all {
		all[i] = int32(i)
	}
	cpu := func(i int32) (float64, bool) { return float64((int(i) * 37) % 100), i%10 != 9 }
	byCPU := func(desc bool) []int32 {
		r := slices.Clone(all)
		slices.SortStableFunc(r, func(a, b int32) int {
			x, okx := cpu(a)
			y, oky := cpu(b)
			switch {
			case !okx && !oky:
				return 0
			case !okx:
				return 1
			case !oky:
				return -1
			case desc:
				return int(y - x)
			}
			return int(x - y)
		})
		return r
	}
	lon := []int32{}
	for i := int32(1); i < n; i += 3 {
		lon = append(lon, i)
	}
	cases := []struct {
		name    string
		o       order
		maxSort int64
		want    []int32
		err     string
	}{
		{name: "sort by id down", o: order{sort: "id", desc: true}, want: reversed(all)},
		{name: "sort by cpu, nulls last", o: order{sort: "cpu"}, want: byCPU(false)},
		{name: "sort by cpu down, nulls last", o: order{sort: "cpu", desc: true}, want: byCPU(true)},
		{name: "filter", o: order{query: "site is 'lon'"}, want: lon},
		{name: "filter then sort", o: order{query: "site is 'lon' and id < 10", sort: "id", desc: true}, want: []int32{7, 4, 1}},
		{name: "filter matching nothing", o: order{query: "id > 5000"}, want: []int32{}},
		{name: "sort by text", o: order{query: "id < 6", sort: "site"}, want: []int32{1, 4, 0, 3, 2, 5}},
		{name: "bad query", o: order{query: "id >"}, err: "col"},
		{name: "unknown column in query", o: order{query: "nope = 1"}, err: `no column "nope"`},
		{name: "unknown sort column", o: order{sort: "nope"}, err: `no column "nope"`},
		{name: "GET", o: order{query: "id < 3 GET id"}, err: "leave out GET"},
		{name: "over the sort limit", o: order{sort: "id"}, maxSort: 999, err: "more than the viewer sorts (999)"},
	}
	for name, tb := range tables(t, n) {
		for _, c := range cases {
			t.Run(name+"/"+c.name, func(t *testing.T) {
				maxSort := c.maxSort
				if maxSort == 0 {
					maxSort = DefaultMaxSortRows
				}
				if name == "streamed" && c.maxSort != 0 {
					t.Skip("a streamed table's count is known once read; its limit is checked while reading")
				}
				v, err := compute(context.Background(), tb, c.o, maxSort, &progress{})
				if c.err != "" {
					if err == nil || !strings.Contains(err.Error(), c.err) {
						t.Fatalf("err = %v, want %q", err, c.err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if got := ids(v); !slices.Equal(got, c.want) {
					t.Fatalf("rows = %v, want %v", head(got), head(c.want))
				}
			})
		}
	}
}

func head(r []int32) []int32 { return r[:min(len(r), 12)] }

func reversed(r []int32) []int32 {
	r = slices.Clone(r)
	slices.Reverse(r)
	return r
}

// TestSortLimitWhileReading: the keys of a table whose rows are not
// counted yet (still loading) are refused as they are read, once they
// pass the limit. (Through compute, the outcome raced the table's load:
// a load done first gave the refusal before reading, which "over the
// sort limit" checks.)
func TestSortLimitWhileReading(t *testing.T) {
	path := writeTable(t, 500, 100)
	tb, err := Open(context.Background(), lazy.New(lazy.NewFile(path, frame.Auto)).Head(500), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	_, err = readKeys(context.Background(), tb, "id", 300, &progress{})
	if err == nil || !strings.Contains(err.Error(), "more than 300 rows") {
		t.Fatalf("err = %v, want the limit", err)
	}
}

func TestComputeCancelled(t *testing.T) {
	tb := tables(t, 1000)["by row group"]
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := compute(ctx, tb, order{sort: "cpu"}, DefaultMaxSortRows, &progress{}); err == nil {
		t.Fatal("a cancelled sort succeeded")
	}
}

func TestMemoryLimit(t *testing.T) {
	path := writeTable(t, 1000, 100)
	tb, err := Open(context.Background(), lazy.New(lazy.NewFile(path, frame.Auto)).Head(1000), 250)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	if _, err := tb.Scan(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if n := tb.Rows(); n != 250 {
		t.Fatalf("Rows = %d, want the limit 250", n)
	}
	if !strings.Contains(tb.Note(), "the first 250 rows") {
		t.Fatalf("Note = %q, want it to say the limit", tb.Note())
	}
}

func TestSummarize(t *testing.T) {
	tb := tables(t, 1000)["by row group"]
	s, err := summarize(context.Background(), tb, "cpu", nil, &progress{})
	if err != nil {
		t.Fatal(err)
	}
	if s.rows != 1000 || s.nulls != 100 || s.min != "0.0" || s.max != "99.0" || s.dtype != "float64" {
		t.Fatalf("summary = %+v", s)
	}
	s, err = summarize(context.Background(), tb, "site", []int32{5, 1, 2, 4}, &progress{})
	if err != nil {
		t.Fatal(err)
	}
	if s.rows != 4 || s.nulls != 0 || s.min != "" || !slices.Equal(s.top, []count{{"lon", 2}, {"sfo", 2}}) {
		t.Fatalf("summary = %+v", s)
	}
}

// driver runs a model as bubbletea would, without a terminal: it runs
// the commands, feeds their messages back, and renders.
type driver struct {
	t    *testing.T
	m    *model
	msgs chan tea.Msg
	quit bool
}

func newDriver(t *testing.T, tb Table, w, h int) *driver {
	d := &driver{t: t, m: newModel(context.Background(), tb, Options{Title: "t"}), msgs: make(chan tea.Msg, 100)}
	d.run(d.m.Init())
	d.send(tea.WindowSizeMsg{Width: w, Height: h})
	return d
}

func (d *driver) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() { d.msgs <- cmd() }()
}

func (d *driver) send(msg tea.Msg) {
	switch msg := msg.(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			d.run(c)
		}
		return
	case tea.QuitMsg:
		d.quit = true
		return
	}
	_, cmd := d.m.Update(msg)
	d.run(cmd)
}

// keys sends keys: a name bubbletea gives (down, pgdown, esc, enter) or
// runes.
func (d *driver) keys(ks ...string) {
	for _, k := range ks {
		switch k {
		case "down":
			d.send(tea.KeyMsg{Type: tea.KeyDown})
		case "pgdown":
			d.send(tea.KeyMsg{Type: tea.KeyPgDown})
		case "end":
			d.send(tea.KeyMsg{Type: tea.KeyEnd})
		case "enter":
			d.send(tea.KeyMsg{Type: tea.KeyEnter})
		case "esc":
			d.send(tea.KeyMsg{Type: tea.KeyEsc})
		case "ctrl+u":
			d.send(tea.KeyMsg{Type: tea.KeyCtrlU})
		default:
			d.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)})
		}
	}
}

// waitFor handles messages until the screen shows all of what.
func (d *driver) waitFor(what ...string) string {
	d.t.Helper()
	return d.waitUntil(fmt.Sprintf("%q", what), func(screen string) bool {
		return !slices.ContainsFunc(what, func(w string) bool { return !strings.Contains(screen, w) })
	})
}

// waitForRow handles messages until a line of the screen has the
// words fields.
func (d *driver) waitForRow(fields ...string) {
	d.t.Helper()
	d.waitUntil(fmt.Sprintf("a row %q", fields), func(screen string) bool {
		return slices.ContainsFunc(strings.Split(screen, "\n"), func(l string) bool { return slices.Equal(strings.Fields(l), fields) })
	})
}

func (d *driver) waitUntil(what string, ok func(screen string) bool) string {
	d.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		screen := d.m.View()
		if ok(screen) {
			return screen
		}
		select {
		case msg := <-d.msgs:
			d.send(msg)
		case <-deadline:
			d.t.Fatalf("the screen never showed %s:\n%s", what, screen)
		}
	}
}

func TestModel(t *testing.T) {
	for name, tb := range tables(t, 1000) {
		t.Run(name, func(t *testing.T) {
			d := newDriver(t, tb, 80, 13) // 10 rows on the screen
			d.waitFor("1,000 rows × 3 columns", "row 1 of 1,000")
			d.waitForRow("9", "9", "nyc", "NaN")
			d.keys("pgdown", "down")
			d.waitFor("row 12 of 1,000")
			d.waitForRow("11", "11", "sfo", "7.0")
			d.keys("end")
			d.waitFor("row 1,000 of 1,000")
			d.waitForRow("999", "999", "nyc", "NaN")
			d.keys("l", "l", "s", "s") // cpu, descending
			d.waitFor("sorted by cpu ↓", "row 1 of 1,000 · column 3 of 3: cpu")
			d.waitForRow("27", "27", "nyc", "99.0")
			d.keys("/")
			d.keys("site is 'sfo' and cpu >= 98")
			d.waitFor("/site is 'sfo' and cpu >= 98█")
			d.keys("enter")
			d.waitFor("6 rows × 3 columns · filter: site is 'sfo' and cpu >= 98 · sorted by cpu ↓", "row 1 of 6")
			d.waitForRow("227", "227", "sfo", "99.0")
			d.keys("i")
			d.waitFor("Column cpu", "rows     6 (the rows the filter keeps)", "min      98.0", "max      99.0")
			d.keys("x", ":", "2")
			d.waitFor(":2█")
			d.keys("enter")
			d.waitFor("row 2 is not among the rows shown")
			d.keys(":", "554", "enter")
			d.waitFor("row 5 of 6")
			d.keys("/", "ctrl+u", "enter") // an empty query: every row, still sorted
			d.waitFor("1,000 rows × 3 columns · sorted by cpu ↓")
			d.keys("/", "ctrl+u", "nope > 1", "enter")
			d.waitFor(`error: no column "nope"`)
			d.keys("q")
			d.waitUntil("the viewer to quit", func(string) bool { return d.quit })
		})
	}
}

func TestSummaryDistinctLimit(t *testing.T) {
	defer func(n int) { maxDistinct = n }(maxDistinct)
	maxDistinct = 2
	tb := tables(t, 1000)["by row group"]
	s, err := summarize(context.Background(), tb, "site", nil, &progress{})
	if err != nil {
		t.Fatal(err)
	}
	// nyc and lon are counted; sfo, the third value, is not.
	if !s.capped || !slices.Equal(s.top, []count{{"nyc", 334}, {"lon", 333}}) {
		t.Fatalf("summary = %+v", s)
	}
}

func TestCacheLimit(t *testing.T) {
	defer func(n int) { maxCached = n }(maxCached)
	maxCached = 100
	d := newDriver(t, tables(t, 1000)["by row group"], 80, 13)
	for i := range 30 {
		d.keys("pgdown")
		d.waitFor(fmt.Sprintf("row %d of 1,000", min(i*10+11, 1000)))
		top := min(i*10+10, 990)
		d.waitForRow(append([]string{fmt.Sprint(top)}, cellsOf(top)...)...)
		if len(d.m.cache) > maxCached {
			t.Fatalf("%d rows kept, over the limit of %d", len(d.m.cache), maxCached)
		}
	}
}

func TestSortTextLimit(t *testing.T) {
	defer func(n int64) { maxSortBytes = n }(maxSortBytes)
	maxSortBytes = 1000
	tb := tables(t, 1000)["by row group"]
	_, err := compute(context.Background(), tb, order{sort: "site"}, DefaultMaxSortRows, &progress{})
	if err == nil || !strings.Contains(err.Error(), "its text is over 1000 bytes") {
		t.Fatalf("err = %v, want the text limit", err)
	}
}

// gatedSource holds its first batch until gate is closed: a stream that
// has not started when the viewer first draws.
type gatedSource struct {
	frame.Source
	gate chan struct{}
}

func (g *gatedSource) Next() (arrow.Record, error) {
	<-g.gate
	return g.Source.Next()
}

// TestStreamReadAfterFirstScreen: a table read in the background that has
// no row yet when the viewer first draws, and is read whole before the
// next redraw, is shown then, without a key.
func TestStreamReadAfterFirstScreen(t *testing.T) {
	path := writeTable(t, 1000, 100)
	src, err := lazy.New(lazy.NewFile(path, frame.Auto)).Head(1000).Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	g := &gatedSource{Source: src, gate: make(chan struct{})}
	m := newMemTable(g, 1<<20)
	t.Cleanup(m.Close)
	d := newDriver(t, m, 80, 13)
	close(g.gate)
	<-m.done // read whole before the first tick
	d.waitForRow("9", "9", "nyc", "NaN")
}
