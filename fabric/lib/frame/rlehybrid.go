package frame

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// rleHybrid decodes Parquet's RLE / bit-packing hybrid encoding, the
// encoding of definition levels and of dictionary indices: a sequence of
// runs, each a ULEB128 header whose low bit says what follows. 0: a run
// of (header>>1) copies of one value, stored in ceil(width/8) little-
// endian bytes; 1: (header>>1) groups of 8 values bit-packed, width bits
// each, least significant bit first. A decoder never reads past its data,
// and a run that claims more than its data holds is an error when a value
// beyond the data is asked for.
type rleHybrid struct {
	data  []byte
	pos   int // the next run's header
	width int // bits per value, 0 to 32
	mask  uint64
	rle   int    // values left in the current repeated run
	val   uint32 // its value
	bp    int    // values left in the current bit-packed run
	bit   int    // the bit offset in data of its next value
}

// errRLE is the error of hybrid data that ends, or says more than it can.
var errRLE = errors.New("corrupt RLE / bit-packed data")

// maxRun bounds the values of one run, as a page bounds its rows.
const maxRun = 1 << 31

// reset starts decoding data, values of width bits.
func (d *rleHybrid) reset(data []byte, width int) error {
	if width < 0 || width > 32 {
		return fmt.Errorf("a bit width of %d", width)
	}
	*d = rleHybrid{data: data, width: width, mask: 1<<uint(width) - 1}
	return nil
}

// next reads the next run's header.
func (d *rleHybrid) next() error {
	h, n := binary.Uvarint(d.data[d.pos:])
	if n <= 0 {
		return errRLE
	}
	d.pos += n
	count := h >> 1
	if count == 0 || count > maxRun {
		return errRLE
	}
	if h&1 == 0 {
		size := (d.width + 7) / 8
		if d.pos+size > len(d.data) {
			return errRLE
		}
		var v uint32
		for i := range size {
			v |= uint32(d.data[d.pos+i]) << (8 * i)
		}
		d.pos += size
		d.rle, d.val = int(count), v
		return nil
	}
	if count > maxRun/8 {
		return errRLE
	}
	values := int(count) * 8
	bytes := int(count) * d.width
	if d.pos+bytes > len(d.data) {
		// A last run cut short: its values are those its bytes hold.
		bytes = len(d.data) - d.pos
		if d.width > 0 {
			values = bytes * 8 / d.width
		}
		if values == 0 {
			return errRLE
		}
	}
	d.bit = d.pos * 8
	d.pos += bytes
	d.bp = values
	return nil
}

// get decodes len(out) values.
func (d *rleHybrid) get(out []uint32) error {
	for i := 0; i < len(out); {
		if d.rle == 0 && d.bp == 0 {
			if err := d.next(); err != nil {
				return err
			}
		}
		if d.rle > 0 {
			n := min(d.rle, len(out)-i)
			fill := out[i : i+n]
			for j := range fill {
				fill[j] = d.val
			}
			d.rle -= n
			i += n
			continue
		}
		n := min(d.bp, len(out)-i)
		d.unpack(out[i : i+n])
		d.bp -= n
		i += n
	}
	return nil
}

// unpack decodes len(out) values of the bit-packed run.
func (d *rleHybrid) unpack(out []uint32) {
	if d.width == 0 {
		clear(out)
		return
	}
	bit, width, mask, data := d.bit, d.width, d.mask, d.data
	for j := range out {
		off := bit >> 3
		var w uint64
		if off+8 <= len(data) {
			w = binary.LittleEndian.Uint64(data[off:])
		} else {
			for k, b := range data[off:] {
				w |= uint64(b) << (8 * k)
			}
		}
		out[j] = uint32(w >> uint(bit&7) & mask)
		bit += width
	}
	d.bit = bit
}

// skip passes over n values.
func (d *rleHybrid) skip(n int) error {
	for n > 0 {
		if d.rle == 0 && d.bp == 0 {
			if err := d.next(); err != nil {
				return err
			}
		}
		if d.rle > 0 {
			k := min(d.rle, n)
			d.rle -= k
			n -= k
			continue
		}
		k := min(d.bp, n)
		d.bp -= k
		d.bit += k * d.width
		n -= k
	}
	return nil
}

// ones decodes n values of width 1 (definition levels of a flat optional
// column) into out[:n] and counts the ones; out is grown as needed. When
// every one of the n values is one (the column has no null there), out
// is not written and all is true.
func (d *rleHybrid) ones(out []uint32, n int) (levels []uint32, count int, all bool, err error) {
	if d.rle == 0 && d.bp == 0 {
		if err := d.next(); err != nil {
			return out, 0, false, err
		}
	}
	if d.rle >= n && d.val == 1 {
		d.rle -= n
		return out, n, true, nil
	}
	if cap(out) < n {
		out = make([]uint32, n)
	}
	out = out[:n]
	if err := d.get(out); err != nil {
		return out, 0, false, err
	}
	for _, v := range out {
		if v > 1 {
			return out, 0, false, fmt.Errorf("a definition level of %d", v)
		}
		count += int(v)
	}
	return out, count, count == n, nil
}
