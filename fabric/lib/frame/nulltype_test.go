package frame_test

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/fabricops/fabric/fabric/lib/frame"
)

// TestNullTypedColumn checks that every value of a null-typed column (as
// Parquet files hold for all-None columns) is nil, through Row, Column
// and ValueAt alike.
func TestNullTypedColumn(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "none", Type: arrow.Null, Nullable: true},
	}, nil)
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues([]int64{1, 2}, nil)
	ints := b.NewArray()
	nulls := array.NewNull(2)
	rec := array.NewRecord(schema, []arrow.Array{ints, nulls}, 2)
	ints.Release()
	f := frame.FromRecords(schema, []arrow.Record{rec})
	defer f.Release()
	checkRows(t, f, [][]any{{int64(1), nil}, {int64(2), nil}})
	col, err := f.Column("none")
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range col {
		if v != nil {
			t.Errorf("Column: value %d = %#v, want nil", i, v)
		}
		if v := frame.ValueAt(nulls, i); v != nil {
			t.Errorf("ValueAt: value %d = %#v, want nil", i, v)
		}
	}
	nulls.Release()
}
