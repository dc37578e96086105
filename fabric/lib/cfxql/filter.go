package cfxql

import (
	"context"
	"fmt"
	"math/bits"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/fabricops/fabric/fabric/lib/frame"
)

// Filter returns the rows of f that match, then projected by GET: the
// GET columns in their order, aliased ones renamed. Batches are filtered
// in parallel. A column the query names that f lacks is an error
// ("unknown column 'cpu'"), even when f has no rows.
func (q *Query) Filter(f *frame.Frame) (*frame.Frame, error) {
	src, err := q.FilterSource(f.Source())
	if err != nil {
		return nil, err
	}
	defer src.Close()
	return frame.ReadFrom(src)
}

// prepare checks that schema has every column the condition reads and
// returns the indices of the output columns and the output schema.
func (q *Query) prepare(schema *arrow.Schema) ([]int, *arrow.Schema, error) {
	for _, c := range q.Columns() {
		if len(schema.FieldIndices(c)) == 0 {
			return nil, nil, fmt.Errorf("unknown column '%s'", c)
		}
	}
	return q.project(schema)
}

// project returns the indices of the output columns in schema and the
// output schema (GET's columns renamed by their aliases, or all).
func (q *Query) project(schema *arrow.Schema) ([]int, *arrow.Schema, error) {
	if q.proj == nil {
		idx := make([]int, schema.NumFields())
		for i := range idx {
			idx[i] = i
		}
		return idx, schema, nil
	}
	idx := make([]int, len(q.proj))
	fields := make([]arrow.Field, len(q.proj))
	seen := map[string]bool{}
	for i, c := range q.proj {
		j := schema.FieldIndices(c.Name)
		if len(j) == 0 {
			return nil, nil, fmt.Errorf("unknown column '%s'", c.Name)
		}
		idx[i], fields[i] = j[0], schema.Field(j[0])
		if c.Alias != "" {
			fields[i].Name = c.Alias
		}
		if seen[fields[i].Name] {
			return nil, nil, fmt.Errorf("column '%s' appears twice in GET", fields[i].Name)
		}
		seen[fields[i].Name] = true
	}
	return idx, arrow.NewSchema(fields, nil), nil
}

// filterRecord returns the rows of rec that match, in the columns cols;
// nil when none does.
func (q *Query) filterRecord(rec arrow.Record, cols []int, schema *arrow.Schema, now time.Time) (arrow.Record, error) {
	n := int(rec.NumRows())
	var mask bitset
	if !q.MatchesAll() {
		var err error
		if mask, err = q.maskBits(rec, now); err != nil {
			return nil, err
		}
	}
	arrs := make([]arrow.Array, len(cols))
	if mask == nil || mask.all(n) {
		for i, j := range cols {
			arrs[i] = rec.Column(j)
		}
		return array.NewRecord(schema, arrs, int64(n)), nil
	}
	m := mask.count()
	if m == 0 {
		return nil, nil
	}
	sel := selection(mask, m)
	var maskArr *array.Boolean
	defer func() {
		if maskArr != nil {
			maskArr.Release()
		}
	}()
	for i, j := range cols {
		a := gather(rec.Column(j), sel)
		if a == nil {
			if maskArr == nil {
				maskArr = mask.toBoolean(n)
			}
			var err error
			if a, err = compute.FilterArray(context.Background(), rec.Column(j), maskArr, *compute.DefaultFilterOptions()); err != nil {
				for _, x := range arrs[:i] {
					x.Release()
				}
				return nil, fmt.Errorf("filter column '%s': %v", rec.ColumnName(j), err)
			}
		}
		arrs[i] = a
	}
	out := array.NewRecord(schema, arrs, int64(m))
	for _, a := range arrs {
		a.Release()
	}
	return out, nil
}

// selection returns the indices of the m set bits.
func selection(mask bitset, m int) []int32 {
	sel := make([]int32, 0, m)
	for w, word := range mask {
		base := int32(w << 6)
		for word != 0 {
			sel = append(sel, base+int32(bits.TrailingZeros64(word)))
			word &= word - 1
		}
	}
	return sel
}

// gather builds the rows sel of arr, for fixed-width and string types;
// nil for the others (filtered by Arrow's kernel instead).
func gather(arr arrow.Array, sel []int32) arrow.Array {
	if arr.DataType().ID() == arrow.NULL {
		return array.NewNull(len(sel))
	}
	d := arr.Data()
	off := d.Offset()
	var validity *memory.Buffer
	nulls := 0
	if arr.NullN() > 0 {
		validity, nulls = gatherBits(arr.NullBitmapBytes(), off, sel)
	}
	var bufs []*memory.Buffer
	switch arr.DataType().ID() {
	case arrow.INT64, arrow.UINT64, arrow.FLOAT64, arrow.TIMESTAMP, arrow.DATE64, arrow.TIME64, arrow.DURATION:
		bufs = []*memory.Buffer{validity, gatherFixed(arrow.Int64Traits.CastFromBytes(d.Buffers()[1].Bytes()), off, sel, arrow.Int64Traits.CastToBytes)}
	case arrow.INT32, arrow.UINT32, arrow.FLOAT32, arrow.DATE32, arrow.TIME32:
		bufs = []*memory.Buffer{validity, gatherFixed(arrow.Int32Traits.CastFromBytes(d.Buffers()[1].Bytes()), off, sel, arrow.Int32Traits.CastToBytes)}
	case arrow.INT16, arrow.UINT16:
		bufs = []*memory.Buffer{validity, gatherFixed(arrow.Int16Traits.CastFromBytes(d.Buffers()[1].Bytes()), off, sel, arrow.Int16Traits.CastToBytes)}
	case arrow.INT8, arrow.UINT8:
		bufs = []*memory.Buffer{validity, gatherFixed(arrow.Int8Traits.CastFromBytes(d.Buffers()[1].Bytes()), off, sel, arrow.Int8Traits.CastToBytes)}
	case arrow.BOOL:
		vals, _ := gatherBits(d.Buffers()[1].Bytes(), off, sel)
		bufs = []*memory.Buffer{validity, vals}
	case arrow.STRING, arrow.BINARY:
		offs := arrow.Int32Traits.CastFromBytes(d.Buffers()[1].Bytes())[off:]
		o, v := gatherVar(offs, valueBuf(arr), sel, arrow.Int32Traits.CastToBytes)
		bufs = []*memory.Buffer{validity, o, v}
	case arrow.LARGE_STRING, arrow.LARGE_BINARY:
		offs := arrow.Int64Traits.CastFromBytes(d.Buffers()[1].Bytes())[off:]
		o, v := gatherVar(offs, valueBuf(arr), sel, arrow.Int64Traits.CastToBytes)
		bufs = []*memory.Buffer{validity, o, v}
	default:
		return nil
	}
	out := array.NewData(arr.DataType(), len(sel), bufs, nil, nulls, 0)
	defer out.Release()
	return array.MakeFromData(out)
}

// gatherFixed gathers fixed-width values.
func gatherFixed[T any](vals []T, off int, sel []int32, toBytes func([]T) []byte) *memory.Buffer {
	vals = vals[off:]
	out := make([]T, len(sel))
	for i, j := range sel {
		out[i] = vals[j]
	}
	return memory.NewBufferBytes(toBytes(out))
}

// gatherVar gathers variable-width values (strings, binaries).
func gatherVar[O int32 | int64](offs []O, data []byte, sel []int32, toBytes func([]O) []byte) (*memory.Buffer, *memory.Buffer) {
	outOffs := make([]O, len(sel)+1)
	var total O
	for i, j := range sel {
		total += offs[j+1] - offs[j]
		outOffs[i+1] = total
	}
	outData := make([]byte, total)
	for i, j := range sel {
		copy(outData[outOffs[i]:outOffs[i+1]], data[offs[j]:offs[j+1]])
	}
	return memory.NewBufferBytes(toBytes(outOffs)), memory.NewBufferBytes(outData)
}

// gatherBits gathers bits of a bitmap from bit off; it also returns the
// number of unset bits (the nulls of a validity bitmap).
func gatherBits(buf []byte, off int, sel []int32) (*memory.Buffer, int) {
	out := make([]byte, (len(sel)+7)/8)
	unset := 0
	for i, j := range sel {
		k := off + int(j)
		if buf[k>>3]>>(k&7)&1 != 0 {
			out[i>>3] |= 1 << (i & 7)
		} else {
			unset++
		}
	}
	return memory.NewBufferBytes(out), unset
}
