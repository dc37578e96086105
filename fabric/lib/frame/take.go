package frame

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Take returns the rows sel of arr (indices in increasing order, or in
// any order), as a new array the caller releases. Fixed-width and string
// columns are gathered directly; other types go through Arrow's take
// kernel.
func Take(arr arrow.Array, sel []int32) (arrow.Array, error) {
	if a := gather(arr, sel); a != nil {
		return a, nil
	}
	idx := array.NewInt32Data(array.NewData(arrow.PrimitiveTypes.Int32, len(sel),
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(sel))}, nil, 0, 0))
	defer idx.Release()
	out, err := compute.TakeArray(context.Background(), arr, idx)
	if err != nil {
		return nil, fmt.Errorf("take rows of %s: %v", arr.DataType(), err)
	}
	return out, nil
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
		o, v := gatherVar(offs, stringData(arr), sel, arrow.Int32Traits.CastToBytes)
		bufs = []*memory.Buffer{validity, o, v}
	case arrow.LARGE_STRING, arrow.LARGE_BINARY:
		offs := arrow.Int64Traits.CastFromBytes(d.Buffers()[1].Bytes())[off:]
		o, v := gatherVar(offs, stringData(arr), sel, arrow.Int64Traits.CastToBytes)
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

// stringData returns the values buffer of a string or binary array
// (its offsets index into it).
func stringData(a arrow.Array) []byte {
	if bufs := a.Data().Buffers(); len(bufs) > 2 && bufs[2] != nil {
		return bufs[2].Bytes()
	}
	return nil
}
