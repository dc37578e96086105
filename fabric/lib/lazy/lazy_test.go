package lazy_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/fabricops/fabric/fabric/lib/cfxql/cfxarrow"
	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/fabricops/fabric/fabric/lib/lazy"
)

// writeFixture writes rows rows in row groups of group rows: id 0..rows-1
// (sorted, so that ranges of id select row groups), host (web-N, null on
// every 7th row), cpu (id mod 100, as a float) and region.
func writeFixture(t testing.TB, rows, group int) string {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "host", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "cpu", Type: arrow.PrimitiveTypes.Float64},
		{Name: "region", Type: arrow.BinaryTypes.String},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	regions := []string{"north", "south", "east", "west"}
	for i := range rows {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		if i%7 == 0 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("web-%d", i%13))
		}
		b.Field(2).(*array.Float64Builder).Append(float64(i % 100))
		b.Field(3).(*array.StringBuilder).Append(regions[(i/group)%4])
	}
	rec := b.NewRecord()
	defer rec.Release()
	path := filepath.Join(t.TempDir(), "fixture.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(int64(group)))
	w, err := pqarrow.NewFileWriter(schema, f, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLazyEqualsEager: a lazy table's rows equal those of reading the
// file whole and applying the same operations to the frame.
func TestLazyEqualsEager(t *testing.T) {
	path := writeFixture(t, 10000, 1000)
	whole, err := frame.Read(path, frame.Parquet)
	if err != nil {
		t.Fatal(err)
	}
	type step struct {
		filter string
		cols   []string
		head   int
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"nothing", nil},
		{"range on the sorted column", []step{{filter: "id >= 2500 and id < 3100"}}},
		{"every row group skipped", []step{{filter: "id > 1000000"}}},
		{"no row group skipped", []step{{filter: "cpu > 50"}}},
		{"nulls", []step{{filter: "host is null"}}},
		{"not null and equal", []step{{filter: "host = 'web-3' and id < 4000"}}},
		{"string range", []step{{filter: "region = 'east'"}}},
		{"in", []step{{filter: "region in ['north', 'west'] and cpu < 10"}}},
		{"not equal", []step{{filter: "region != 'north'"}}},
		{"or", []step{{filter: "id < 5 or id > 9995"}}},
		{"not", []step{{filter: "not id < 9990"}}},
		{"empty result", []step{{filter: "host = 'nowhere'"}}},
		{"get renames", []step{{filter: "id < 20 get id as n, host"}, {filter: "n > 10"}}},
		{"select then filter", []step{{cols: []string{"cpu", "id"}}, {filter: "id >= 10 and id <= 12"}}},
		{"filter then select", []step{{filter: "cpu = 42"}, {cols: []string{"region"}}}},
		{"head", []step{{head: 5}}},
		{"filter then head", []step{{filter: "cpu = 3"}, {head: 4}}},
		{"head then filter", []step{{head: 1500}, {filter: "region = 'south'"}}},
	}
	ctx := context.Background()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			lt := lazy.New(lazy.NewFile(path, frame.Parquet))
			eager := whole
			for _, s := range tc.steps {
				switch {
				case s.filter != "":
					q, err := cfxarrow.Parse(s.filter)
					if err != nil {
						t.Fatalf("%s: %v", s.filter, err)
					}
					lt = lt.Filter(q)
					if eager, err = q.Filter(eager); err != nil {
						t.Fatal(err)
					}
				case s.cols != nil:
					lt = lt.Select(s.cols)
					if eager, err = eager.Select(s.cols); err != nil {
						t.Fatal(err)
					}
				default:
					lt = lt.Head(s.head)
					eager = eager.Head(s.head)
				}
			}
			got, err := lt.Collect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != eager.String() || got.NumRows() != eager.NumRows() {
				t.Fatalf("lazy:\n%s\neager:\n%s", got, eager)
			}
			n, err := lt.Count(ctx)
			if err != nil || n != int64(eager.NumRows()) {
				t.Fatalf("count %d, %v; want %d", n, err, eager.NumRows())
			}
		})
	}
}

// TestRowGroupsSkipped: a selective filter reads fewer row groups than
// the file has; one no statistics can decide reads them all.
func TestRowGroupsSkipped(t *testing.T) {
	path := writeFixture(t, 10000, 1000)
	cases := []struct {
		query string
		read  int
	}{
		{"id >= 2500 and id < 3100", 2},
		{"id = 7777", 1},
		{"id > 1000000", 0},
		{"region = 'east'", 2},
		{"region in ['north', 'west'] and id < 4000", 2},
		{"cpu > 50", 10},
		{"host is null", 10},
		{"not id < 9990", 10},
	}
	for _, tc := range cases {
		q, err := cfxarrow.Parse(tc.query)
		if err != nil {
			t.Fatal(err)
		}
		f, _ := os.Open(path)
		src, err := frame.OpenParquet(f, path, frame.Scan{Columns: []string{"id"}, Keep: q.KeepRowGroup})
		if err != nil {
			t.Fatal(err)
		}
		read, total := src.RowGroups()
		src.Close()
		f.Close()
		if total != 10 || read != tc.read {
			t.Errorf("%s: read %d of %d row groups, want %d", tc.query, read, total, tc.read)
		}
	}
}

// TestMetadata: counts and columns come from the footer, without a read,
// and an unknown column fails before one.
func TestMetadata(t *testing.T) {
	path := writeFixture(t, 3000, 1000)
	ctx := context.Background()
	lt := lazy.New(lazy.NewFile(path, frame.Parquet))
	if n, err := lt.Head(10).NumRows(ctx); err != nil || n != 10 {
		t.Fatalf("head count: %d %v", n, err)
	}
	if n, err := lt.NumRows(ctx); err != nil || n != 3000 {
		t.Fatalf("count: %d %v", n, err)
	}
	q, _ := cfxarrow.Parse("nope > 1")
	if err := lt.Filter(q).Check(ctx); err == nil || err.Error() != "unknown column 'nope'" {
		t.Fatalf("unknown column: %v", err)
	}
	cols, err := lt.Select([]string{"cpu", "id"}).Columns(ctx)
	if err != nil || fmt.Sprint(cols) != "[{cpu float64} {id int64}]" {
		t.Fatalf("columns: %v %v", cols, err)
	}
	q, _ = cfxarrow.Parse("id < 3 get host as h, cpu")
	cols, err = lt.Filter(q).Columns(ctx)
	if err != nil || fmt.Sprint(cols) != "[{h object} {cpu float64}]" {
		t.Fatalf("columns after GET: %v %v", cols, err)
	}
}
