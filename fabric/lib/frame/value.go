package frame

import (
	"encoding/json"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ValueAt returns value i of an Arrow array as a Go value, as Row does:
// nil, bool, int64, uint64, float64, string or time.Time (UTC). Binary
// values become strings, lists and structs their JSON text, decimals their
// text with the digits their scale says ("1.50"). Every value of a null-typed array is nil.
func ValueAt(arr arrow.Array, i int) any {
	if arr.IsNull(i) {
		return nil
	}
	switch a := arr.(type) {
	case *array.Null:
		// A null array has no validity bitmap: IsNull is false.
		return nil
	case *array.Int64:
		return a.Value(i)
	case *array.Int32:
		return int64(a.Value(i))
	case *array.Int16:
		return int64(a.Value(i))
	case *array.Int8:
		return int64(a.Value(i))
	case *array.Uint64:
		return a.Value(i)
	case *array.Uint32:
		return uint64(a.Value(i))
	case *array.Uint16:
		return uint64(a.Value(i))
	case *array.Uint8:
		return uint64(a.Value(i))
	case *array.Float64:
		return a.Value(i)
	case *array.Float32:
		return float64(a.Value(i))
	case *array.Float16:
		return float64(a.Value(i).Float32())
	case *array.Boolean:
		return a.Value(i)
	case *array.String:
		return a.Value(i)
	case *array.LargeString:
		return a.Value(i)
	case *array.StringView:
		return a.Value(i)
	case *array.Binary:
		return string(a.Value(i))
	case *array.LargeBinary:
		return string(a.Value(i))
	case *array.Timestamp:
		return a.Value(i).ToTime(a.DataType().(*arrow.TimestampType).Unit).UTC()
	case *array.Date32:
		return a.Value(i).ToTime().UTC()
	case *array.Date64:
		return a.Value(i).ToTime().UTC()
	case *array.Dictionary:
		return ValueAt(a.Dictionary(), a.GetValueIndex(i))
	}
	if s, ok := decimalText(arr, i); ok {
		return s
	}
	b, err := json.Marshal(arr.GetOneForMarshal(i))
	if err != nil {
		return arr.ValueStr(i)
	}
	return string(b)
}

// recordBytes returns the in-memory size of a batch: the bytes of the
// Arrow buffers its columns use (for a slice, the part of the buffers in
// the slice).
func recordBytes(rec arrow.Record) int64 {
	var n int64
	for _, col := range rec.Columns() {
		n += arrayBytes(col.Data())
	}
	return n
}

func arrayBytes(d arrow.ArrayData) int64 {
	length, offset := int64(d.Len()), int64(d.Offset())
	bufs := d.Buffers()
	size := func(b *memory.Buffer) int64 {
		if b == nil {
			return 0
		}
		return int64(b.Len())
	}
	var n int64
	if len(bufs) > 0 && bufs[0] != nil {
		n += (length + 7) / 8
	}
	switch dt := d.DataType().(type) {
	case arrow.FixedWidthDataType:
		if dt.ID() == arrow.BOOL {
			return n + (length+7)/8
		}
		if len(bufs) > 1 {
			return n + min(length*int64(dt.BitWidth()/8), size(bufs[1]))
		}
	case *arrow.StringType, *arrow.BinaryType:
		if len(bufs) > 2 && bufs[1] != nil && length > 0 {
			offs := arrow.Int32Traits.CastFromBytes(bufs[1].Bytes())
			if int64(len(offs)) > offset+length {
				return n + (length+1)*4 + int64(offs[offset+length]-offs[offset])
			}
		}
	}
	for _, b := range bufs[min(1, len(bufs)):] {
		n += size(b)
	}
	for _, c := range d.Children() {
		n += arrayBytes(c)
	}
	// A dictionary column with no rows may have no dictionary: a nil
	// *array.Data in a non-nil interface.
	if dict, ok := d.Dictionary().(*array.Data); ok && dict != nil {
		n += arrayBytes(dict)
	}
	return n
}
