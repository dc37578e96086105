package frame_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/fabricops/fabric/fabric/lib/frame"
)

// decimalFrame is a frame of DECIMAL(10,2) and DECIMAL(40,3) values: 1.50,
// -0.05, 100.00 and a null; 1.000, -2.500, 0.000 and a null.
func decimalFrame(t *testing.T) *frame.Frame {
	t.Helper()
	mem := memory.DefaultAllocator
	price := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 10, Scale: 2})
	defer price.Release()
	for _, v := range []int64{150, -5, 10000} {
		price.Append(decimal128.FromI64(v))
	}
	price.AppendNull()
	big := array.NewDecimal256Builder(mem, &arrow.Decimal256Type{Precision: 40, Scale: 3})
	defer big.Release()
	for _, v := range []int64{1000, -2500, 0} {
		big.Append(decimal256.FromI64(v))
	}
	big.AppendNull()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "price", Type: price.Type(), Nullable: true},
		{Name: "big", Type: big.Type(), Nullable: true},
	}, nil)
	pa, ba := price.NewArray(), big.NewArray()
	defer pa.Release()
	defer ba.Release()
	return frame.FromRecords(schema, []arrow.Record{array.NewRecord(schema, []arrow.Array{pa, ba}, 4)})
}

// TestDecimalKeepsScale: DECIMAL values keep their scale in JSON, JSON
// lines and CSV text, in rows, and through a Parquet file, whose DECIMAL
// columns read back as decimals.
func TestDecimalKeepsScale(t *testing.T) {
	f := decimalFrame(t)
	p := filepath.Join(t.TempDir(), "d.parquet")
	if err := f.Write(p, frame.Auto); err != nil {
		t.Fatal(err)
	}
	back, err := frame.Read(p, frame.Auto)
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]*frame.Frame{"built": f, "parquet": back} {
		for _, tc := range []struct {
			format frame.Format
			want   string
		}{
			{frame.JSONL, "{\"price\":1.50,\"big\":1.000}\n{\"price\":-0.05,\"big\":-2.500}\n{\"price\":100.00,\"big\":0.000}\n{\"price\":null,\"big\":null}\n"},
			{frame.CSV, "price,big\n1.50,1.000\n-0.05,-2.500\n100.00,0.000\n,\n"},
		} {
			var buf bytes.Buffer
			if err := f.WriteTo(&buf, tc.format, frame.NoCompression); err != nil {
				t.Fatal(err)
			}
			if buf.String() != tc.want {
				t.Errorf("%s %s = %q, want %q", name, tc.format, buf.String(), tc.want)
			}
		}
		if row := f.Row(1); row[0] != "-0.05" || row[1] != "-2.500" {
			t.Errorf("%s row 1 = %#v, want the decimals' text with their scale", name, row)
		}
	}
}
