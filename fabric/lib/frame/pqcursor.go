package frame

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// cursor reads a column of a row group, a run of rows at a time.
type cursor struct {
	s  *selectScan
	rg *file.RowGroupReader
	g  int
	c  scanColumn
	// A column whose pages are decoded here (pqpage.go):
	pg      *pageColumn
	noPages bool // the column's pages are not
	// A column decoded directly:
	r file.ColumnChunkReader
	// A text column read as a dictionary, a batch at a time:
	dict bool
	rr   pqarrow.RecordReader
	// A column decoded through Arrow's reader, whole, and the rows of it
	// read so far:
	whole arrow.Array
	off   int64
}

// read decodes the rows sel (nil: all) of the next n rows.
func (k *cursor) read(n int64, sel []int32) (arrow.Array, error) {
	pg, err := k.pages()
	if err != nil {
		return nil, err
	}
	if k.dict {
		if pg != nil {
			a, err := pg.readDict(n, k.c.field.Type)
			if err != nil {
				return nil, k.fail(err)
			}
			return a, nil
		}
		return k.readDict(n)
	}
	if pg != nil {
		d, err := pg.read(n, sel, k.c.field.Type, k.textSize(n, sel))
		if err != nil {
			return nil, k.fail(err)
		}
		defer d.Release()
		return array.MakeFromData(d), nil
	}
	if k.c.kind == viaArrow {
		if err := k.loadWhole(); err != nil {
			return nil, err
		}
		part := array.NewSlice(k.whole, k.off, k.off+n)
		k.off += n
		if sel == nil {
			return part, nil
		}
		defer part.Release()
		return Take(part, sel)
	}
	if k.r == nil {
		r, err := k.rg.Column(k.c.leaves[0])
		if err != nil {
			return nil, k.fail(err)
		}
		k.r = r
	}
	maxDef := k.r.Descriptor().MaxDefinitionLevel()
	var d *array.Data
	t := k.c.field.Type
	switch k.c.kind {
	case directBool:
		d, err = decodeBools(k.r.(*file.BooleanColumnChunkReader), t, n, sel, maxDef)
	case directInt32:
		d, err = decodeFixed(k.r.(*file.Int32ColumnChunkReader), t, n, sel, maxDef, arrow.Int32Traits.CastToBytes)
	case directInt64:
		d, err = decodeFixed(k.r.(*file.Int64ColumnChunkReader), t, n, sel, maxDef, arrow.Int64Traits.CastToBytes)
	case directFloat32:
		d, err = decodeFixed(k.r.(*file.Float32ColumnChunkReader), t, n, sel, maxDef, arrow.Float32Traits.CastToBytes)
	case directFloat64:
		d, err = decodeFixed(k.r.(*file.Float64ColumnChunkReader), t, n, sel, maxDef, arrow.Float64Traits.CastToBytes)
	case directBytes:
		d, err = decodeBytes(k.r.(*file.ByteArrayColumnChunkReader), t, n, sel, maxDef, k.textSize(n, sel))
	}
	if err != nil {
		return nil, k.fail(err)
	}
	defer d.Release()
	return array.MakeFromData(d), nil
}

// maxTextGuess bounds textSize: the guess is the footer's word, which a
// crafted file can make as large as it likes, and it is allocated before
// any text is there (past it, the buffer grows as the text comes).
const maxTextGuess = 4 << 20

// textSize guesses the bytes of the text of the rows sel (nil: all) of
// n rows, so that the buffer is sized once.
func (k *cursor) textSize(n int64, sel []int32) int64 {
	if k.c.kind != directBytes {
		return 0
	}
	md, err := k.rg.MetaData().ColumnChunk(k.c.leaves[0])
	if err != nil {
		return 0
	}
	return textGuess(md.TotalUncompressedSize(), k.rg.NumRows(), int64(outRows(n, sel)))
}

// textGuess guesses the bytes of rows values of a text column chunk of
// chunkBytes plain bytes (values and their lengths) over groupRows rows:
// at most maxTextGuess, whatever the footer says.
func textGuess(chunkBytes, groupRows, rows int64) int64 {
	if groupRows <= 0 || chunkBytes <= 0 || rows <= 0 {
		return 0
	}
	perRow := chunkBytes / groupRows
	if perRow > maxTextGuess/rows {
		return maxTextGuess
	}
	return perRow * rows
}

// pages returns the column's page decoder, or nil when its pages are not
// decoded here.
func (k *cursor) pages() (*pageColumn, error) {
	if k.pg != nil || k.noPages {
		return k.pg, nil
	}
	leaf := k.c.leaves[0]
	if k.c.kind == viaArrow || !pageDecodable(k.rg, leaf, k.c.kind) {
		k.noPages = true
		return nil, nil
	}
	pg, err := newPageColumn(k.rg, leaf, k.c.kind, k.s.pf.MetaData().Schema.Column(leaf).MaxDefinitionLevel())
	if err != nil {
		return nil, k.fail(err)
	}
	k.pg = pg
	return pg, nil
}

// skip passes over the next n rows.
func (k *cursor) skip(n int64) error {
	pg, err := k.pages()
	if err != nil {
		return err
	}
	if pg != nil {
		if err := pg.skip(n); err != nil {
			return k.fail(err)
		}
		return nil
	}
	if k.c.kind == viaArrow {
		k.off += n
		return nil
	}
	if k.r == nil {
		r, err := k.rg.Column(k.c.leaves[0])
		if err != nil {
			return k.fail(err)
		}
		k.r = r
	}
	if _, err := k.r.(interface{ Skip(int64) (int64, error) }).Skip(n); err != nil {
		return k.fail(err)
	}
	return nil
}

func (k *cursor) fail(err error) error {
	return fmt.Errorf("%s: column '%s': %v", k.s.name, k.c.field.Name, err)
}

// readDict reads the next n rows of a text column as a dictionary
// array (every row: it is read for the filter).
func (k *cursor) readDict(n int64) (arrow.Array, error) {
	if k.rr == nil {
		rr, err := k.s.dictFr.GetRecordReader(context.Background(), k.c.leaves, []int{k.g})
		if err != nil {
			return nil, k.fail(err)
		}
		k.rr = rr
	}
	if !k.rr.Next() {
		err := k.rr.Err()
		if err == nil || errors.Is(err, io.EOF) {
			err = fmt.Errorf("the row group ended early")
		}
		return nil, k.fail(err)
	}
	rec := k.rr.RecordBatch()
	if rec.NumRows() != n {
		return nil, k.fail(fmt.Errorf("read %d rows where %d were asked", rec.NumRows(), n))
	}
	a := rec.Column(0)
	a.Retain()
	return a, nil
}

func (k *cursor) release() {
	if k.pg != nil {
		k.pg.close()
		k.pg = nil
	}
	if k.rr != nil {
		k.rr.Release()
		k.rr = nil
	}
	if k.whole != nil {
		k.whole.Release()
		k.whole = nil
	}
}

// loadWhole decodes the column of the row group with Arrow's reader.
func (k *cursor) loadWhole() error {
	if k.whole != nil {
		return nil
	}
	rr, err := k.s.fr.GetRecordReader(context.Background(), k.c.leaves, []int{k.g})
	if err != nil {
		return k.fail(err)
	}
	defer rr.Release()
	var chunks []arrow.Array
	defer func() {
		for _, a := range chunks {
			a.Release()
		}
	}()
	for rr.Next() {
		a := rr.RecordBatch().Column(0)
		a.Retain()
		chunks = append(chunks, a)
	}
	if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
		return k.fail(err)
	}
	switch len(chunks) {
	case 0:
		k.whole = array.MakeArrayOfNull(memory.DefaultAllocator, k.c.field.Type, 0)
	case 1:
		k.whole = chunks[0]
		k.whole.Retain()
	default:
		if k.whole, err = array.Concatenate(chunks, memory.DefaultAllocator); err != nil {
			return k.fail(err)
		}
	}
	// A corrupt file can decode to other than its row group's rows, or
	// to an array whose buffers are short of its length.
	if got, want := int64(k.whole.Len()), k.rg.NumRows(); got != want {
		return k.fail(fmt.Errorf("corrupt Parquet data: %d rows in a row group of %d", got, want))
	}
	if err := array.Validate(k.whole); err != nil {
		return k.fail(fmt.Errorf("corrupt Parquet data: %v", err))
	}
	return nil
}

// decodeChunk is the number of values decoded at a time; skipRun is the
// shortest run of unselected rows skipped rather than decoded.
const (
	decodeChunk = 4096
	skipRun     = 1024
)

// levelReader is what a typed column chunk reader offers.
type levelReader[T any] interface {
	ReadBatchInPage(batchSize int64, values []T, defLvls, repLvls []int16) (int64, int, error)
	Skip(n int64) (int64, error)
}

// pick is a row kept from a chunk of decoded values: its position in the
// result, and the index of its value in the chunk (-1: null).
type pick struct{ out, vi int32 }

// walk reads the rows sel (nil: all n) of a flat column, a chunk at a
// time: for each chunk it calls keep with the chunk's values and the rows
// kept from it. The values stay valid until keep returns.
func walk[T any](r levelReader[T], n int64, sel []int32, maxDef int16, keep func(vals []T, picks []pick)) error {
	vals := make([]T, decodeChunk)
	var defs []int16
	if maxDef > 0 {
		defs = make([]int16, decodeChunk)
	}
	picks := make([]pick, 0, decodeChunk)
	row, k := int64(0), 0
	for row < n {
		if sel != nil {
			if k == len(sel) {
				// The rest of the run is not wanted; the next run starts
				// after it.
				_, err := r.Skip(n - row)
				return err
			}
			if gap := int64(sel[k]) - row; gap >= skipRun {
				if _, err := r.Skip(gap); err != nil {
					return err
				}
				row += gap
				continue
			}
		}
		want := min(int64(decodeChunk), n-row)
		if sel != nil {
			// Stop at the next long gap, so it can be skipped.
			last := k
			for last+1 < len(sel) && int64(sel[last+1])-int64(sel[last]) < skipRun && int64(sel[last+1])-row < want {
				last++
			}
			want = min(want, int64(sel[last])-row+1)
		}
		lv, _, err := r.ReadBatchInPage(want, vals, defs, nil)
		if err != nil {
			return err
		}
		if lv == 0 {
			return fmt.Errorf("%d rows where the row group has %d", row, n)
		}
		picks = picks[:0]
		vi := int32(0)
		for li := range int32(lv) {
			valid := maxDef == 0 || defs[li] == maxDef
			at := int32(-1)
			if valid {
				at = vi
				vi++
			}
			if sel == nil {
				picks = append(picks, pick{int32(row) + li, at})
			} else if k < len(sel) && sel[k] == int32(row)+li {
				picks = append(picks, pick{int32(k), at})
				k++
			}
		}
		keep(vals, picks)
		row += lv
	}
	if sel != nil && k < len(sel) {
		return fmt.Errorf("%d rows where the row group has %d", row, n)
	}
	return nil
}

// validity is a validity bitmap being built.
type validity struct {
	bits  []byte
	nulls int
}

func newValidity(rows int, nullable bool) *validity {
	if !nullable {
		return nil
	}
	return &validity{bits: make([]byte, (rows+7)/8)}
}

func (v *validity) set(i int, valid bool) {
	if v == nil {
		return
	}
	if valid {
		v.bits[i>>3] |= 1 << (i & 7)
	} else {
		v.nulls++
	}
}

// setRange marks the n rows from i valid.
func (v *validity) setRange(i, n int) {
	if v == nil {
		return
	}
	end := i + n
	for ; i < end && i&7 != 0; i++ {
		v.bits[i>>3] |= 1 << (i & 7)
	}
	full := v.bits[i>>3 : end>>3]
	for j := range full {
		full[j] = 0xff
	}
	for i = max(i, end&^7); i < end; i++ {
		v.bits[i>>3] |= 1 << (i & 7)
	}
}

// buffer returns the bitmap (nil when no row is null) and the null count.
func (v *validity) buffer() (*memory.Buffer, int) {
	if v == nil || v.nulls == 0 {
		return nil, 0
	}
	return memory.NewBufferBytes(v.bits), v.nulls
}

// maxText is the most bytes of text a batch's column holds (its offsets
// are int32); errTooMuchText says a batch went past it.
const maxText = 1<<31 - 1

var errTooMuchText = errors.New("more than 2 GB of text in one batch")

// textBuffer returns an empty buffer for the text of rows values, size
// bytes guessed.
func textBuffer(rows int, size int64) []byte {
	return make([]byte, 0, min(max(size, int64(rows)*8), maxText))
}

// fixedData is an array of type t of rows fixed-width values, and
// validity v (nil: none is null).
func fixedData(t arrow.DataType, rows int, values []byte, v *validity) *array.Data {
	bm, nulls := v.buffer()
	return array.NewData(t, rows, []*memory.Buffer{bm, memory.NewBufferBytes(values)}, nil, nulls, 0)
}

// textData is a text or binary array of type t, value i data[offs[i]:
// offs[i+1]], and validity v (nil: none is null).
func textData(t arrow.DataType, offs []int32, data []byte, v *validity) *array.Data {
	bm, nulls := v.buffer()
	return array.NewData(t, len(offs)-1, []*memory.Buffer{bm, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offs)),
		memory.NewBufferBytes(data)}, nil, nulls, 0)
}

func outRows(n int64, sel []int32) int {
	if sel != nil {
		return len(sel)
	}
	return int(n)
}

func decodeFixed[T any](r levelReader[T], t arrow.DataType, n int64, sel []int32, maxDef int16, toBytes func([]T) []byte) (*array.Data, error) {
	rows := outRows(n, sel)
	out := make([]T, rows)
	v := newValidity(rows, maxDef > 0)
	err := walk(r, n, sel, maxDef, func(vals []T, picks []pick) {
		for _, p := range picks {
			if p.vi >= 0 {
				out[p.out] = vals[p.vi]
			}
			v.set(int(p.out), p.vi >= 0)
		}
	})
	if err != nil {
		return nil, err
	}
	return fixedData(t, rows, toBytes(out), v), nil
}

func decodeBools(r *file.BooleanColumnChunkReader, t arrow.DataType, n int64, sel []int32, maxDef int16) (*array.Data, error) {
	rows := outRows(n, sel)
	out := make([]byte, (rows+7)/8)
	v := newValidity(rows, maxDef > 0)
	err := walk(r, n, sel, maxDef, func(vals []bool, picks []pick) {
		for _, p := range picks {
			if p.vi >= 0 && vals[p.vi] {
				out[p.out>>3] |= 1 << (p.out & 7)
			}
			v.set(int(p.out), p.vi >= 0)
		}
	})
	if err != nil {
		return nil, err
	}
	return fixedData(t, rows, out, v), nil
}

// decodeBytes decodes strings or binaries (size: a guess of their bytes);
// the values a read returns point into the page, so each is copied as it
// is kept.
func decodeBytes(r *file.ByteArrayColumnChunkReader, t arrow.DataType, n int64, sel []int32, maxDef int16, size int64) (*array.Data, error) {
	rows := outRows(n, sel)
	offs := make([]int32, rows+1)
	data := textBuffer(rows, size)
	v := newValidity(rows, maxDef > 0)
	err := walk(r, n, sel, maxDef, func(vals []parquet.ByteArray, picks []pick) {
		d := data // a local: appends stay off the heap's write barrier
		for _, p := range picks {
			if p.vi >= 0 {
				d = append(d, vals[p.vi]...)
			}
			offs[p.out+1] = int32(len(d))
			v.set(int(p.out), p.vi >= 0)
		}
		data = d
	})
	if err == nil && len(data) > maxText {
		err = errTooMuchText
	}
	if err != nil {
		return nil, err
	}
	return textData(t, offs, data, v), nil
}

// dictEncoded reports whether every data page of a column chunk is
// dictionary encoded (a writer whose dictionary grew too large falls
// back to plain pages, which would make a dictionary of every value).
func dictEncoded(rg *file.RowGroupReader, col int) bool {
	md, err := rg.MetaData().ColumnChunk(col)
	if err != nil || !md.HasDictionaryPage() {
		return false
	}
	stats := md.EncodingStats()
	if len(stats) == 0 {
		return false
	}
	const dictionaryPage = 2 // PageType DICTIONARY_PAGE
	for _, st := range stats {
		if int(st.PageType) == dictionaryPage {
			continue
		}
		if st.Encoding != parquet.Encodings.PlainDict && st.Encoding != parquet.Encodings.RLEDict {
			return false
		}
	}
	return true
}

// plainText decodes the rows sel (nil: all) of a dictionary of text into
// a plain array of type t (string or binary).
func plainText(d *array.Dictionary, sel []int32, t arrow.DataType) arrow.Array {
	n := d.Len()
	if sel != nil {
		n = len(sel)
	}
	var dOffs []int32
	var dData []byte
	switch dict := d.Dictionary().(type) {
	case *array.String:
		dOffs, dData = dict.ValueOffsets(), stringData(dict)
	case *array.Binary:
		dOffs, dData = dict.ValueOffsets(), stringData(dict)
	default:
		panic("frame: a text dictionary of " + d.Dictionary().DataType().String())
	}
	offs := make([]int32, n+1)
	data := make([]byte, 0, n*8)
	v := newValidity(n, d.NullN() > 0)
	if ix, ok := d.Indices().(*array.Int32); ok && v == nil {
		// No null, and the indices a scan makes: no call per row.
		idx := ix.Int32Values()
		for i := range n {
			row := i
			if sel != nil {
				row = int(sel[i])
			}
			j := idx[row]
			data = append(data, dData[dOffs[j]:dOffs[j+1]]...)
			offs[i+1] = int32(len(data))
		}
	} else {
		for i := range n {
			row := i
			if sel != nil {
				row = int(sel[i])
			}
			valid := d.IsValid(row)
			if valid {
				j := d.GetValueIndex(row)
				data = append(data, dData[dOffs[j]:dOffs[j+1]]...)
			}
			offs[i+1] = int32(len(data))
			v.set(i, valid)
		}
	}
	out := textData(t, offs, data, v)
	defer out.Release()
	return array.MakeFromData(out)
}
