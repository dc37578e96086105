package frame

import (
	"encoding/binary"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// refHybrid decodes the RLE / bit-packing hybrid bit by bit, as the
// format describes it: the reference the decoder is held to.
func refHybrid(data []byte, width, n int) ([]uint32, bool) {
	var out []uint32
	pos := 0
	for len(out) < n {
		h, k := binary.Uvarint(data[pos:])
		if k <= 0 || h>>1 == 0 || h>>1 > maxRun {
			return out, false
		}
		pos += k
		count := int(h >> 1)
		if h&1 == 0 {
			size := (width + 7) / 8
			if pos+size > len(data) {
				return out, false
			}
			var v uint32
			for i := range size {
				v |= uint32(data[pos+i]) << (8 * i)
			}
			pos += size
			for range min(count, n-len(out)) {
				out = append(out, v)
			}
			continue
		}
		if count > maxRun/8 {
			return out, false
		}
		bit := pos * 8
		end := min(pos+count*width, len(data))
		values := count * 8
		if width > 0 {
			values = min(values, (end-pos)*8/width)
		}
		if values == 0 {
			return out, false
		}
		for range min(values, n-len(out)) {
			var v uint32
			for b := range width {
				if data[(bit+b)>>3]>>((bit+b)&7)&1 == 1 {
					v |= 1 << b
				}
			}
			out = append(out, v)
			bit += width
		}
		pos = end
	}
	return out[:n], true
}

// FuzzRLEHybrid holds the decoder to the reference: any data, any width,
// read in two parts with a skip between; never a read past the data.
func FuzzRLEHybrid(f *testing.F) {
	f.Add([]byte{0x06, 0x01, 0x03, 0x88, 0xc6, 0xfa}, uint8(3), uint16(7), uint16(2), uint16(5))
	f.Add([]byte{0x10, 0x00, 0x05, 0xff}, uint8(1), uint16(12), uint16(3), uint16(4))
	f.Add([]byte{0x03, 0x01, 0x02, 0x03, 0x04}, uint8(13), uint16(8), uint16(1), uint16(1))
	f.Add([]byte{0x0a, 0x00}, uint8(0), uint16(5), uint16(0), uint16(5))
	f.Fuzz(func(t *testing.T, data []byte, width uint8, a, skip, b uint16) {
		w := int(width % 33)
		n := int(a)%300 + int(skip)%300 + int(b)%300
		ref, ok := refHybrid(data, w, n)
		var d rleHybrid
		if err := d.reset(data, w); err != nil {
			t.Fatal(err)
		}
		first := make([]uint32, int(a)%300)
		err := d.get(first)
		if err == nil {
			err = d.skip(int(skip) % 300)
		}
		second := make([]uint32, int(b)%300)
		if err == nil {
			err = d.get(second)
		}
		if ok != (err == nil) {
			t.Fatalf("decoder error %v, reference ok %v", err, ok)
		}
		if !ok {
			return
		}
		for i, v := range first {
			if v != ref[i] {
				t.Fatalf("value %d: %d, want %d", i, v, ref[i])
			}
		}
		at := len(first) + int(skip)%300
		for i, v := range second {
			if v != ref[at+i] {
				t.Fatalf("value %d: %d, want %d", at+i, v, ref[at+i])
			}
		}
	})
}

// memPages serves pages held in memory, as a column chunk's page reader
// serves them once decompressed.
type memPages struct {
	pages []file.Page
	cur   file.Page
}

func (m *memPages) SetMaxPageHeaderSize(int) {}
func (m *memPages) Page() file.Page          { return m.cur }
func (m *memPages) Err() error               { return nil }
func (m *memPages) Next() bool {
	if len(m.pages) == 0 {
		return false
	}
	m.cur, m.pages = m.pages[0], m.pages[1:]
	return true
}
func (m *memPages) Reset(parquet.BufferedReader, int64, compress.Compression, *file.CryptoContext) {}
func (m *memPages) GetDictionaryPage() (*file.DictionaryPage, error)                               { return nil, nil }
func (m *memPages) SeekToPageWithRow(int64) error                                                  { return nil }
func (m *memPages) Close() error                                                                   { return nil }

// FuzzPageColumn decodes pages of any bytes as every kind of column, in
// every way a scan reads one: an error, never a panic or a value out of
// the page.
func FuzzPageColumn(f *testing.F) {
	plain := []byte{3, 0, 0, 0, 'a', 'b', 'c', 1, 0, 0, 0, 'x'}
	levels := []byte{2, 0, 0, 0, 0x03, 0x05} // RLE: 1 repeated 1 time... then bit-packed
	f.Add([]byte{}, uint16(0), plain, uint16(2), uint8(0), uint8(0), uint8(0))
	f.Add(plain, uint16(2), []byte{1, 0x04, 0x01}, uint16(2), uint8(1), uint8(1), uint8(2))
	f.Add([]byte{}, uint16(0), append(levels, plain...), uint16(3), uint8(0), uint8(4), uint8(1))
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0}, uint16(2), []byte{1, 0x05, 0x01}, uint16(2), uint8(1), uint8(3), uint8(3))
	f.Fuzz(func(t *testing.T, dict []byte, dictN uint16, data []byte, rows uint16, enc, kindDef, mode uint8) {
		kinds := []decodeKind{directBytes, directInt32, directInt64, directFloat32, directFloat64}
		kind := kinds[int(kindDef)%len(kinds)]
		maxDef := int16(kindDef/8) % 2
		encs := []parquet.Encoding{parquet.Encodings.Plain, parquet.Encodings.RLEDict, parquet.Encodings.PlainDict, parquet.Encodings.DeltaBinaryPacked}
		var pages []file.Page
		if len(dict) > 0 || dictN > 0 {
			pages = append(pages, file.NewDictionaryPage(memory.NewBufferBytes(dict), int32(dictN), parquet.Encodings.Plain))
		}
		pages = append(pages, file.NewDataPageV1(memory.NewBufferBytes(data), int32(rows), encs[int(enc)%len(encs)],
			parquet.Encodings.RLE, parquet.Encodings.RLE, int32(len(data))))
		c := &pageColumn{pr: &memPages{pages: pages}, maxDef: maxDef, pageScratch: new(pageScratch)}
		switch kind {
		case directInt32, directFloat32:
			c.width = 4
		case directInt64, directFloat64:
			c.width = 8
		}
		types := map[decodeKind]arrow.DataType{directBytes: arrow.BinaryTypes.Binary, directInt32: arrow.PrimitiveTypes.Int32,
			directInt64: arrow.PrimitiveTypes.Int64, directFloat32: arrow.PrimitiveTypes.Float32, directFloat64: arrow.PrimitiveTypes.Float64}
		n := int64(rows % 64)
		check := func(d *array.Data, err error) {
			if err != nil {
				return
			}
			a := array.MakeFromData(d)
			defer a.Release()
			d.Release()
			validate(t, a)
		}
		switch mode % 4 {
		case 0:
			check(c.read(n, nil, types[kind], 0))
		case 1:
			var sel []int32
			for r := int32(0); r < int32(n); r += 3 {
				sel = append(sel, r)
			}
			check(c.read(n, sel, types[kind], 0))
		case 2:
			if kind == directBytes {
				if a, err := c.readDict(n, arrow.BinaryTypes.Binary); err == nil {
					d := a.(*array.Dictionary)
					validate(t, d.Dictionary())
					ix := d.Indices().(*array.Int32)
					for i, j := range ix.Int32Values() {
						if ix.IsValid(i) && int(j) >= d.Dictionary().Len() {
							t.Fatalf("index %d of a dictionary of %d", j, d.Dictionary().Len())
						}
					}
					a.Release()
				}
			}
		case 3:
			if c.skip(n/2) == nil {
				check(c.read(n-n/2, nil, types[kind], 0))
			}
		}
		c.close()
	})
}

// validate fails the test when a text array's offsets leave its data.
func validate(t *testing.T, a arrow.Array) {
	if v, ok := a.(interface{ ValidateFull() error }); ok {
		if err := v.ValidateFull(); err != nil {
			t.Fatalf("an invalid array: %v", err)
		}
	}
}

// TestSetRange: marking a range valid sets the bits one by one would.
func TestSetRange(t *testing.T) {
	for from := range 40 {
		for n := range 40 {
			a, b := newValidity(90, true), newValidity(90, true)
			a.setRange(from, n)
			for r := from; r < from+n; r++ {
				b.set(r, true)
			}
			if string(a.bits) != string(b.bits) {
				t.Fatalf("from %d, %d rows: %x, want %x", from, n, a.bits, b.bits)
			}
		}
	}
}

// TestTextGuessBounded: the text buffer's first size follows the footer
// for a plain file and stays under maxTextGuess for a footer that claims
// any size (a crafted file), without overflowing.
func TestTextGuessBounded(t *testing.T) {
	cases := []struct {
		chunk, group, rows, want int64
	}{
		{37 * 262144, 262144, 32768, 37 * 32768},
		{0, 262144, 100, 0},
		{100, 0, 100, 0},
		{-5, 10, 10, 0},
		{1 << 62, 1, 96000, maxTextGuess},
		{1 << 62, 1 << 20, 1 << 20, maxTextGuess},
		{1<<63 - 1, 3, 1<<31 - 1, maxTextGuess},
	}
	for _, c := range cases {
		if got := textGuess(c.chunk, c.group, c.rows); got != c.want {
			t.Errorf("textGuess(%d, %d, %d) = %d, want %d", c.chunk, c.group, c.rows, got, c.want)
		}
	}
}
