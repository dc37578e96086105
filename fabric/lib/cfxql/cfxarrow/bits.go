package cfxarrow

import (
	"encoding/binary"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// bitset is a mask of n rows, 64 to a word, row i at bit i%64 of word
// i/64. Bits past n are always zero.
type bitset []uint64

func newBits(n int) bitset { return make(bitset, (n+63)/64) }

// tailMask returns the mask of the valid bits of the last word.
func tailMask(n int) uint64 {
	if r := n % 64; r != 0 {
		return 1<<r - 1
	}
	return ^uint64(0)
}

// fill sets all n bits.
func (b bitset) fill(n int) {
	for i := range b {
		b[i] = ^uint64(0)
	}
	if len(b) > 0 {
		b[len(b)-1] &= tailMask(n)
	}
}

// invert flips the n bits.
func (b bitset) invert(n int) {
	for i := range b {
		b[i] = ^b[i]
	}
	if len(b) > 0 {
		b[len(b)-1] &= tailMask(n)
	}
}

func (b bitset) and(o bitset) {
	for i := range b {
		b[i] &= o[i]
	}
}

func (b bitset) or(o bitset) {
	for i := range b {
		b[i] |= o[i]
	}
}

func (b bitset) none() bool {
	for _, w := range b {
		if w != 0 {
			return false
		}
	}
	return true
}

// all reports whether the n bits are all set.
func (b bitset) all(n int) bool {
	for i, w := range b {
		want := ^uint64(0)
		if i == len(b)-1 {
			want = tailMask(n)
		}
		if w != want {
			return false
		}
	}
	return true
}

func (b bitset) count() int {
	c := 0
	for _, w := range b {
		c += bits.OnesCount64(w)
	}
	return c
}

func (b bitset) get(i int) bool { return b[i>>6]>>(i&63)&1 != 0 }

// readBitmap reads n bits of an Arrow bitmap (LSB first) from bit off.
func readBitmap(buf []byte, off, n int) bitset {
	out := newBits(n)
	if off%8 == 0 {
		buf = buf[off/8:]
		for w := range out {
			if len(buf) >= (w+1)*8 {
				out[w] = binary.LittleEndian.Uint64(buf[w*8:])
				continue
			}
			var x uint64
			for k := 0; w*8+k < len(buf) && k < 8; k++ {
				x |= uint64(buf[w*8+k]) << (8 * k)
			}
			out[w] = x
		}
	} else {
		for i := 0; i < n; i++ {
			j := off + i
			if buf[j>>3]>>(j&7)&1 != 0 {
				out[i>>6] |= 1 << (i & 63)
			}
		}
	}
	if len(out) > 0 {
		out[len(out)-1] &= tailMask(n)
	}
	return out
}

// validBits returns the rows of arr that are not null, or nil when none
// is null.
func validBits(arr arrow.Array) bitset {
	if arr.NullN() == 0 {
		return nil
	}
	if arr.DataType().ID() == arrow.NULL {
		return newBits(arr.Len())
	}
	return readBitmap(arr.NullBitmapBytes(), arr.Data().Offset(), arr.Len())
}

// toBoolean builds an Arrow boolean array (without nulls) of n rows.
func (b bitset) toBoolean(n int) *array.Boolean {
	buf := make([]byte, (n+7)/8)
	var tmp [8]byte
	for w, x := range b {
		binary.LittleEndian.PutUint64(tmp[:], x)
		copy(buf[w*8:], tmp[:])
	}
	data := array.NewData(arrow.FixedWidthTypes.Boolean, n, []*memory.Buffer{nil, memory.NewBufferBytes(buf)}, nil, 0, 0)
	defer data.Release()
	return array.NewBooleanData(data)
}
