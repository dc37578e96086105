package frame

import (
	"encoding/base64"
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The Parquet writer encodes a text column with a dictionary by hashing
// each value into its own table, which allocates for every value: that
// was a quarter of a dataset add and a seventh of a filter's write. A
// text column chosen for a dictionary is therefore handed to the writer
// as an Arrow dictionary array, its indices found here with a Go map;
// the writer then stores the dictionary once per column chunk and the
// indices as they are. The file is the same (a dictionary-encoded text
// column) and its stored Arrow schema says text: readers get text.

// arrowSchemaKey is the key of the Arrow schema in a Parquet file's
// metadata, as Arrow's writers and readers name it.
const arrowSchemaKey = "ARROW:schema"

// storedSchema is schema as Arrow's Parquet writer stores it (a flat
// schema, which is all textDicts takes).
func storedSchema(schema *arrow.Schema) string {
	return base64.StdEncoding.EncodeToString(flight.SerializeSchema(schema, memory.DefaultAllocator))
}

// dictMaxValues and dictMaxBytes bound a column's dictionary, under the
// writer's own bound of a dictionary page (256 KB): past them (a column
// that looked repetitive in its first batch, and is not), each batch gets
// a dictionary of its own values, and the writer stores the column plain
// as it would have.
const (
	dictMaxValues = 1 << 15
	dictMaxBytes  = 192 << 10
)

// textDicts turns the chosen text columns of each batch into dictionary
// arrays, against one dictionary per column that grows as values come.
// The writer takes a column chunk's dictionary from its first batch and
// stores the rest of the chunk plain if a later batch brings another:
// so a batch that grows a dictionary starts a row group.
type textDicts struct {
	schema *arrow.Schema // the writer's: the chosen columns as dictionaries
	cols   map[int]*textDict
}

// newTextDicts returns the dictionaries of the columns dictText of
// schema; nil when there are none, or when schema is not flat (the
// stored schema of a nested one is rewritten by the writer).
func newTextDicts(schema *arrow.Schema, dictText []int) *textDicts {
	if len(dictText) == 0 {
		return nil
	}
	for _, f := range schema.Fields() {
		if _, nested := f.Type.(arrow.NestedType); nested {
			return nil
		}
	}
	fields := append([]arrow.Field(nil), schema.Fields()...)
	d := &textDicts{cols: map[int]*textDict{}}
	for _, i := range dictText {
		fields[i].Type = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: fields[i].Type}
		d.cols[i] = &textDict{valueType: schema.Field(i).Type, index: map[string]int32{}}
	}
	meta := schema.Metadata()
	d.schema = arrow.NewSchema(fields, &meta)
	return d
}

// encode returns rec with the chosen columns as dictionary arrays, and
// whether a dictionary grew (within its bounds).
func (d *textDicts) encode(rec arrow.Record) (out arrow.Record, grew bool, err error) {
	cols := make([]arrow.Array, rec.NumCols())
	defer func() {
		for i, c := range cols {
			if c != nil && d.cols[i] != nil {
				c.Release()
			}
		}
	}()
	for i := range cols {
		td := d.cols[i]
		if td == nil {
			cols[i] = rec.Column(i)
			continue
		}
		local := td.local
		before := len(td.values)
		a, err := td.encode(rec.Column(i), d.schema.Field(i).Type.(*arrow.DictionaryType))
		if err != nil {
			return nil, false, fmt.Errorf("column %s: %v", rec.ColumnName(i), err)
		}
		cols[i] = a
		grew = grew || !local && !td.local && len(td.values) > before
	}
	return array.NewRecord(d.schema, cols, rec.NumRows()), grew, nil
}

// textDict is one column's dictionary.
type textDict struct {
	valueType arrow.DataType
	index     map[string]int32
	values    [][]byte
	bytes     int
	dict      arrow.Array // values as an array; nil when values grew since
	local     bool        // past the bounds: a dictionary per batch
}

// encode returns a's values as indices into the dictionary.
func (d *textDict) encode(a arrow.Array, dt *arrow.DictionaryType) (arrow.Array, error) {
	value, err := textValues(a)
	if err != nil {
		return nil, err
	}
	if d.local {
		clear(d.index)
		d.values, d.bytes = nil, 0
		d.releaseDict()
	}
	n := a.Len()
	idx := make([]int32, n)
	var valid []bool
	if a.NullN() > 0 {
		valid = make([]bool, n)
	}
	for i := range n {
		if a.IsNull(i) {
			continue
		}
		if valid != nil {
			valid[i] = true
		}
		v := value(i)
		j, ok := d.index[string(v)]
		if !ok {
			j = int32(len(d.values))
			d.index[string(v)] = j
			d.values = append(d.values, append([]byte(nil), v...))
			d.bytes += len(v)
			d.releaseDict()
		}
		idx[i] = j
	}
	ib := array.NewInt32Builder(memory.DefaultAllocator)
	defer ib.Release()
	ib.AppendValues(idx, valid)
	indices := ib.NewArray()
	defer indices.Release()
	if d.dict == nil {
		if d.dict, err = d.build(); err != nil {
			return nil, err
		}
	}
	if len(d.values) > dictMaxValues || d.bytes > dictMaxBytes {
		d.local = true // from the next batch on
	}
	return array.NewDictionaryArray(dt, indices, d.dict), nil
}

// build makes the dictionary array of the values.
func (d *textDict) build() (arrow.Array, error) {
	b := array.NewBuilder(memory.DefaultAllocator, d.valueType)
	defer b.Release()
	switch b := b.(type) {
	case *array.StringBuilder:
		for _, v := range d.values {
			b.BinaryBuilder.Append(v)
		}
	case *array.LargeStringBuilder:
		for _, v := range d.values {
			b.BinaryBuilder.Append(v)
		}
	case *array.BinaryBuilder:
		for _, v := range d.values {
			b.Append(v)
		}
	default:
		return nil, fmt.Errorf("no dictionary of %s", d.valueType)
	}
	return b.NewArray(), nil
}

func (d *textDict) releaseDict() {
	if d.dict != nil {
		d.dict.Release()
		d.dict = nil
	}
}

// textValues returns how to read a text array's values as bytes (valid
// while a lives; the dictionary copies what it keeps).
func textValues(a arrow.Array) (func(int) []byte, error) {
	switch a := a.(type) {
	case *array.String:
		return func(i int) []byte { return unsafeBytes(a.Value(i)) }, nil
	case *array.LargeString:
		return func(i int) []byte { return unsafeBytes(a.Value(i)) }, nil
	case *array.Binary:
		return a.Value, nil
	case *array.LargeBinary:
		return a.Value, nil
	}
	return nil, fmt.Errorf("no dictionary of %s", a.DataType())
}

// unsafeBytes is s's bytes, not copied: read only, while s lives.
func unsafeBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
