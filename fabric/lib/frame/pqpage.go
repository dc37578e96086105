package frame

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// A scan decodes the flat columns it reads most (text, integers, floats)
// from the column chunk's pages itself, rather than through the column
// reader of Arrow's Parquet library: that reader makes a slice header of
// every text value of a page (a pointer write each, which the collector
// must see) before the scan keeps a few of them, and reads the filter's
// dictionary columns through buffers allocated for every batch. Here a
// page's values are walked where they lie and only the rows kept are
// copied out; a dictionary column is returned as its indices against a
// dictionary decoded once per column chunk. Pages come from the library's
// page reader (decompressed, checksums and all); what is decoded here is
// what the format defines for them: definition levels in the RLE /
// bit-packing hybrid, PLAIN values, and dictionary indices.

// Encodings as the Parquet format numbers them.
const (
	encPlain     = 0
	encPlainDict = 2
	encRLE       = 3
	encRLEDict   = 8
)

// pageDecodable reports whether the scan decodes a column chunk's pages
// itself: a flat column (checked by the caller) of a kind it decodes,
// stored unencrypted with only the encodings decoded here.
func pageDecodable(rg *file.RowGroupReader, leaf int, kind decodeKind) bool {
	switch kind {
	case directInt32, directInt64, directFloat32, directFloat64, directBytes:
	default:
		return false
	}
	md, err := rg.MetaData().ColumnChunk(leaf)
	if err != nil || md.CryptoMetadata() != nil {
		return false
	}
	for _, e := range md.Encodings() {
		switch e {
		case parquet.Encodings.Plain, parquet.Encodings.PlainDict, parquet.Encodings.RLE, parquet.Encodings.RLEDict:
		default:
			return false
		}
	}
	return len(md.Encodings()) > 0
}

// pageColumn decodes a flat column chunk, page by page.
type pageColumn struct {
	pr     file.PageReader
	width  int // the bytes of a fixed-width value; 0 for byte arrays
	maxDef int16
	// The chunk's dictionary: value j of a byte array dictionary is
	// dictData[dictOffs[j]:dictOffs[j+1]]; a fixed-width dictionary has
	// its values packed in dictData.
	hasDict  bool
	dictN    int
	dictOffs []int32
	dictData []byte
	dictArr  arrow.Array // the dictionary as an Arrow array (readDict)
	// The current data page:
	left int       // its rows not yet read
	defs rleHybrid // its definition levels (maxDef 1)
	dict bool      // its values are dictionary indices,
	idx  rleHybrid // decoded by idx,
	vals []byte    // or PLAIN values,
	pos  int       // read from here
	*pageScratch
}

// pageScratch is what a page decoder decodes a span into before it keeps
// the rows asked for; it passes from a column chunk to the next.
type pageScratch struct {
	levels []uint32 // a span's definition levels
	ix     []uint32 // its dictionary indices
	fx     []byte   // its fixed-width values from the dictionary
}

var scratchPool = sync.Pool{New: func() any { return new(pageScratch) }}

// newPageColumn starts decoding column leaf of a row group; width is the
// bytes of a value of kind (0: byte arrays).
func newPageColumn(rg *file.RowGroupReader, leaf int, kind decodeKind, maxDef int16) (*pageColumn, error) {
	pr, err := rg.GetColumnPageReader(leaf)
	if err != nil {
		return nil, err
	}
	c := &pageColumn{pr: pr, maxDef: maxDef, pageScratch: scratchPool.Get().(*pageScratch)}
	switch kind {
	case directInt32, directFloat32:
		c.width = 4
	case directInt64, directFloat64:
		c.width = 8
	}
	return c, nil
}

func (c *pageColumn) close() {
	if c.pageScratch != nil {
		scratchPool.Put(c.pageScratch)
		c.pageScratch = nil
	}
	if c.dictArr != nil {
		c.dictArr.Release()
		c.dictArr = nil
	}
	c.pr.Close()
}

// errEarlyEnd is the error of a column chunk with fewer rows than its row
// group.
var errEarlyEnd = errors.New("the column chunk ended before its row group")

// page makes the next data page current, reading the dictionary page
// that comes before it.
func (c *pageColumn) page() error {
	for c.pr.Next() {
		switch p := c.pr.Page().(type) {
		case *file.DictionaryPage:
			if err := c.readDictionary(p); err != nil {
				return err
			}
		case *file.DataPageV1:
			data := p.Data()
			if c.maxDef > 0 {
				if p.DefinitionLevelEncoding() != parquet.Encodings.RLE {
					return fmt.Errorf("definition levels encoded %s", p.DefinitionLevelEncoding())
				}
				if len(data) < 4 {
					return errRLE
				}
				n := int(binary.LittleEndian.Uint32(data))
				if n < 0 || n > len(data)-4 {
					return errRLE
				}
				if err := c.defs.reset(data[4:4+n], 1); err != nil {
					return err
				}
				data = data[4+n:]
			}
			return c.values(int(p.NumValues()), int32(p.Encoding()), data)
		case *file.DataPageV2:
			data := p.Data()
			rep, def := int(p.RepetitionLevelByteLen()), int(p.DefinitionLevelByteLen())
			if rep != 0 || def > len(data) {
				return errRLE
			}
			if c.maxDef > 0 {
				if err := c.defs.reset(data[:def], 1); err != nil {
					return err
				}
			}
			return c.values(int(p.NumRows()), int32(p.Encoding()), data[def:])
		}
	}
	if err := c.pr.Err(); err != nil {
		return err
	}
	return errEarlyEnd
}

// values sets up the decoding of a data page's values.
func (c *pageColumn) values(rows int, enc int32, data []byte) error {
	if rows < 0 {
		return errors.New("a page of a negative number of rows")
	}
	c.left = rows
	switch enc {
	case encPlain:
		c.dict, c.vals, c.pos = false, data, 0
	case encPlainDict, encRLEDict:
		if !c.hasDict {
			return errors.New("a dictionary-encoded page without a dictionary")
		}
		if len(data) < 1 {
			return errRLE
		}
		c.dict = true
		return c.idx.reset(data[1:], int(data[0]))
	default:
		return fmt.Errorf("values encoded %s", parquet.Encoding(enc))
	}
	return nil
}

// readDictionary decodes the chunk's dictionary page (PLAIN values).
func (c *pageColumn) readDictionary(p *file.DictionaryPage) error {
	if e := int32(p.Encoding()); e != encPlain && e != encPlainDict {
		return fmt.Errorf("a dictionary encoded %s", parquet.Encoding(e))
	}
	n, data := int(p.NumValues()), p.Data()
	if n < 0 {
		return errors.New("a dictionary of a negative size")
	}
	if c.width > 0 {
		if n > len(data)/c.width {
			return errors.New("a dictionary page shorter than its values")
		}
		c.dictData = append([]byte(nil), data[:n*c.width]...)
		c.dictN, c.hasDict = n, true
		return nil
	}
	if n > len(data)/4 {
		return errors.New("a dictionary page shorter than its values")
	}
	offs := make([]int32, 0, n+1)
	offs = append(offs, 0)
	vals := make([]byte, 0, len(data)-4*n)
	pos := 0
	for range n {
		v, next, err := plainBytes(data, pos)
		if err != nil {
			return err
		}
		vals = append(vals, v...)
		offs = append(offs, int32(len(vals)))
		pos = next
	}
	c.dictN, c.dictOffs, c.dictData, c.hasDict = n, offs, vals, true
	if c.dictArr != nil {
		c.dictArr.Release()
		c.dictArr = nil
	}
	return nil
}

// plainBytes reads the PLAIN byte array at pos of data: its bytes, and
// where the next one starts.
func plainBytes(data []byte, pos int) ([]byte, int, error) {
	if pos+4 > len(data) {
		return nil, 0, errPlain
	}
	n := int(binary.LittleEndian.Uint32(data[pos:]))
	end := pos + 4 + n
	if n < 0 || end > len(data) || end < pos {
		return nil, 0, errPlain
	}
	return data[pos+4 : end], end, nil
}

// errPlain is the error of PLAIN values that end before the page says.
var errPlain = errors.New("PLAIN values cut short")

// span makes ready the next rows of the current page, at most want: it
// returns how many (m), their definition levels (nil when none is null)
// and the number of values among them.
func (c *pageColumn) span(want int) (m int, levels []uint32, values int, err error) {
	if c.left == 0 {
		if err := c.page(); err != nil {
			return 0, nil, 0, err
		}
		if c.left == 0 {
			return 0, nil, 0, nil
		}
	}
	m = min(c.left, want)
	c.left -= m
	if c.maxDef == 0 {
		return m, nil, m, nil
	}
	lv, count, all, err := c.defs.ones(c.levels, m)
	if err != nil {
		return 0, nil, 0, err
	}
	c.levels = lv
	if all {
		return m, nil, m, nil
	}
	return m, lv[:m], count, nil
}

// indices decodes the next n dictionary indices into c.ix, checking each
// against the dictionary.
func (c *pageColumn) indices(n int) ([]uint32, error) {
	if cap(c.ix) < n {
		c.ix = make([]uint32, n)
	}
	ix := c.ix[:n]
	if err := c.idx.get(ix); err != nil {
		return nil, err
	}
	limit := uint32(c.dictN)
	for _, j := range ix {
		if j >= limit {
			return nil, fmt.Errorf("dictionary index %d of a dictionary of %d", j, limit)
		}
	}
	return ix, nil
}

// skipValues passes over n values of the current page.
func (c *pageColumn) skipValues(n int) error {
	switch {
	case c.dict:
		return c.idx.skip(n)
	case c.width > 0:
		if n > (len(c.vals)-c.pos)/c.width {
			return errPlain
		}
		c.pos += n * c.width
	default:
		for range n {
			_, next, err := plainBytes(c.vals, c.pos)
			if err != nil {
				return err
			}
			c.pos = next
		}
	}
	return nil
}

// skip passes over the next n rows.
func (c *pageColumn) skip(n int64) error {
	for n > 0 {
		m, _, values, err := c.span(int(min(n, 1<<30)))
		if err != nil {
			return err
		}
		if m == 0 {
			return errEarlyEnd
		}
		if err := c.skipValues(values); err != nil {
			return err
		}
		n -= int64(m)
	}
	return nil
}

// selection walks the rows kept of a read: sel holds the kept rows'
// numbers (from the read's first row) in increasing order, or is nil for
// every row.
type selection struct {
	sel []int32
	k   int // the next kept row's place in sel
}

// kept reports whether row r is kept, moving past it.
func (s *selection) kept(r int) bool {
	if s.sel == nil {
		return true
	}
	if s.k < len(s.sel) && int(s.sel[s.k]) == r {
		s.k++
		return true
	}
	return false
}

// none reports whether no row before end is left to keep.
func (s *selection) none(end int) bool {
	return s.sel != nil && (s.k == len(s.sel) || int(s.sel[s.k]) >= end)
}

// read decodes the rows sel (nil: all) of the next n rows as an array of
// type t.
func (c *pageColumn) read(n int64, sel []int32, t arrow.DataType, sizeHint int64) (*array.Data, error) {
	rows := outRows(n, sel)
	v := newValidity(rows, c.maxDef > 0)
	s := selection{sel: sel}
	if c.width > 0 {
		out := make([]byte, rows*c.width)
		if err := c.each(n, &s, func(row, m int, levels []uint32, values int, s *selection) error {
			return c.fixed(out, v, row, m, levels, values, s)
		}); err != nil {
			return nil, err
		}
		return fixedData(t, rows, out, v), nil
	}
	b := bytesOut{offs: make([]int32, rows+1), data: textBuffer(rows, sizeHint), v: v}
	if err := c.each(n, &s, func(row, m int, levels []uint32, values int, s *selection) error {
		return c.bytes(&b, row, m, levels, values, s)
	}); err != nil {
		return nil, err
	}
	return textData(t, b.offs, b.data, v), nil
}

// each calls do for each span of the next n rows, from row 0 of the read;
// a span with no row kept is skipped instead.
func (c *pageColumn) each(n int64, s *selection, do func(row, m int, levels []uint32, values int, s *selection) error) error {
	for row := 0; int64(row) < n; {
		m, levels, values, err := c.span(int(n) - row)
		if err != nil {
			return err
		}
		if m == 0 {
			return errEarlyEnd
		}
		if s.none(row + m) {
			err = c.skipValues(values)
		} else {
			err = do(row, m, levels, values, s)
		}
		if err != nil {
			return err
		}
		row += m
	}
	if s.sel != nil && s.k != len(s.sel) {
		return errors.New("a kept row past the rows read")
	}
	return nil
}

// fixed decodes a span of fixed-width values into out.
func (c *pageColumn) fixed(out []byte, v *validity, row, m int, levels []uint32, values int, s *selection) error {
	w := c.width
	var src []byte // the span's values, one after another
	if c.dict {
		ix, err := c.indices(values)
		if err != nil {
			return err
		}
		if cap(c.fx) < values*w {
			c.fx = make([]byte, values*w)
		}
		src = c.fx[:values*w]
		for i, j := range ix {
			copy(src[i*w:i*w+w], c.dictData[int(j)*w:])
		}
	} else {
		if values > (len(c.vals)-c.pos)/w {
			return errPlain
		}
		src = c.vals[c.pos : c.pos+values*w]
		c.pos += values * w
	}
	if s.sel == nil && levels == nil {
		copy(out[row*w:], src)
		v.setRange(row, m)
		return nil
	}
	vi := 0
	at := row
	if s.sel != nil {
		at = s.k
	}
	for i := range m {
		valid := levels == nil || levels[i] == 1
		if s.kept(row + i) {
			if valid {
				copy(out[at*w:at*w+w], src[vi*w:vi*w+w])
			}
			v.set(at, valid)
			at++
		}
		if valid {
			vi++
		}
	}
	return nil
}

// bytesOut is a byte array column being built.
type bytesOut struct {
	offs []int32
	data []byte
	v    *validity
}

// bytes decodes a span of byte arrays into b.
func (c *pageColumn) bytes(b *bytesOut, row, m int, levels []uint32, values int, s *selection) error {
	var ix []uint32
	if c.dict {
		var err error
		if ix, err = c.indices(values); err != nil {
			return err
		}
	}
	at := row
	if s.sel != nil {
		at = s.k
	}
	data, vals, pos, vi := b.data, c.vals, c.pos, 0
	for i := range m {
		valid := levels == nil || levels[i] == 1
		keep := s.kept(row + i)
		if valid {
			switch {
			case ix != nil:
				if keep {
					j := ix[vi]
					data = append(data, c.dictData[c.dictOffs[j]:c.dictOffs[j+1]]...)
				}
			default:
				v, next, err := plainBytes(vals, pos)
				if err != nil {
					return err
				}
				if keep {
					data = append(data, v...)
				}
				pos = next
			}
			vi++
		}
		if keep {
			b.offs[at+1] = int32(len(data))
			b.v.set(at, valid)
			at++
		}
	}
	b.data, c.pos = data, pos
	if len(data) > maxText {
		return errTooMuchText
	}
	return nil
}

// readDict decodes the next n rows of a dictionary-encoded byte array
// column as a dictionary array of type t's values: every row, its index
// into the chunk's dictionary.
func (c *pageColumn) readDict(n int64, t arrow.DataType) (arrow.Array, error) {
	rows := int(n)
	idx := make([]int32, rows)
	v := newValidity(rows, c.maxDef > 0)
	for row := 0; row < rows; {
		m, levels, values, err := c.span(rows - row)
		if err != nil {
			return nil, err
		}
		if m == 0 {
			return nil, errEarlyEnd
		}
		if !c.dict {
			return nil, errors.New("a page stored plain in a dictionary column")
		}
		ix, err := c.indices(values)
		if err != nil {
			return nil, err
		}
		if levels == nil {
			for i, j := range ix {
				idx[row+i] = int32(j)
			}
			v.setRange(row, m)
		} else {
			vi := 0
			for i := range m {
				valid := levels[i] == 1
				if valid {
					idx[row+i] = int32(ix[vi])
					vi++
				}
				v.set(row+i, valid)
			}
		}
		row += m
	}
	if c.dictArr == nil {
		if !c.hasDict {
			return nil, errors.New("a dictionary column without a dictionary")
		}
		d := textData(t, c.dictOffs, c.dictData, nil)
		c.dictArr = array.MakeFromData(d)
		d.Release()
	}
	ind := fixedData(arrow.PrimitiveTypes.Int32, rows, arrow.Int32Traits.CastToBytes(idx), v)
	defer ind.Release()
	indices := array.MakeFromData(ind)
	defer indices.Release()
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: t}
	return array.NewDictionaryArray(dt, indices, c.dictArr), nil
}
