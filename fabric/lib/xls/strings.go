package xls

import (
	"encoding/binary"
	"strings"
	"unicode/utf16"
)

// This file reads BIFF8 strings and number formats.

// chars decodes n characters of d: UTF-16LE when wide, else one byte a
// character (the low bytes of UTF-16). It returns the text and the bytes
// used, fewer characters when d ends first.
func chars(d []byte, n int, wide bool) (string, int) {
	if wide {
		n = min(n, len(d)/2)
		u := make([]uint16, n)
		for i := range u {
			u[i] = binary.LittleEndian.Uint16(d[2*i:])
		}
		return string(utf16.Decode(u)), 2 * n
	}
	n = min(n, len(d))
	r := make([]rune, n)
	for i := range r {
		r[i] = rune(d[i])
	}
	return string(r), n
}

// unicodeString reads an XLUnicodeString (a 16-bit count, flags, the
// characters, then any rich-text runs and extended data, which are
// skipped) and returns it with the bytes it took.
func unicodeString(d []byte) (string, int, bool) {
	if len(d) < 3 {
		return "", len(d), false
	}
	return flaggedString(d[2:], int(binary.LittleEndian.Uint16(d)), 2)
}

// shortString reads a ShortXLUnicodeString (an 8-bit count).
func shortString(d []byte) (string, int, bool) {
	if len(d) < 2 {
		return "", len(d), false
	}
	return flaggedString(d[1:], int(d[0]), 1)
}

// flaggedString reads the flags byte and what follows it of a string of n
// characters whose count took head bytes.
func flaggedString(d []byte, n, head int) (string, int, bool) {
	flags := d[0]
	at := 1
	runs, ext := 0, 0
	if flags&0x08 != 0 && at+2 <= len(d) {
		runs = int(binary.LittleEndian.Uint16(d[at:]))
		at += 2
	}
	if flags&0x04 != 0 && at+4 <= len(d) {
		ext = int(binary.LittleEndian.Uint32(d[at:]) & 0x7FFFFFFF)
		at += 4
	}
	s, used := chars(d[min(at, len(d)):], n, flags&0x01 != 0)
	return s, head + at + used + 4*runs + ext, true
}

// sstReader reads the shared strings table across its CONTINUE records:
// a string's characters may continue in the next record, which then
// begins with a new flags byte saying whether they are wide.
type sstReader struct {
	parts [][]byte
	p, at int
}

func (r *sstReader) left() int {
	if r.p >= len(r.parts) {
		return 0
	}
	return len(r.parts[r.p]) - r.at
}

// next moves to the next record when this one is used up.
func (r *sstReader) next() bool {
	for r.p < len(r.parts) && r.at >= len(r.parts[r.p]) {
		r.p++
		r.at = 0
	}
	return r.p < len(r.parts)
}

// take returns the next n bytes of the current record (fewer at its end).
func (r *sstReader) take(n int) []byte {
	if !r.next() {
		return nil
	}
	n = min(n, r.left())
	b := r.parts[r.p][r.at : r.at+n]
	r.at += n
	return b
}

// skip passes over n bytes, across records.
func (r *sstReader) skip(n int) {
	for n > 0 && r.next() {
		k := min(n, r.left())
		r.at += k
		n -= k
	}
}

func (r *sstReader) u16() (int, bool) {
	b := r.take(2)
	if len(b) < 2 {
		return 0, false
	}
	return int(binary.LittleEndian.Uint16(b)), true
}

// readSST reads the strings of an SST record and its CONTINUE records:
// a header (total and unique counts), then the unique strings.
func readSST(parts [][]byte) []string {
	r := &sstReader{parts: parts}
	head := r.take(8)
	if len(head) < 8 {
		return nil
	}
	unique := int(binary.LittleEndian.Uint32(head[4:]))
	size := 0
	for _, p := range parts {
		size += len(p)
	}
	// Each string takes 3 bytes at least: never trust the count further.
	out := make([]string, 0, min(unique, size/3))
	for len(out) < unique {
		n, ok := r.u16()
		if !ok {
			break
		}
		fl := r.take(1)
		if len(fl) < 1 {
			break
		}
		flags := fl[0]
		runs, ext := 0, 0
		if flags&0x08 != 0 {
			runs, _ = r.u16()
		}
		if flags&0x04 != 0 {
			b := r.take(4)
			if len(b) == 4 {
				ext = int(binary.LittleEndian.Uint32(b) & 0x7FFFFFFF)
			}
		}
		var sb strings.Builder
		wide := flags&0x01 != 0
		for n > 0 {
			if r.left() == 0 {
				// The characters go on in the next record, which
				// begins by restating their width.
				r.next()
				fb := r.take(1)
				if len(fb) == 0 {
					break
				}
				wide = fb[0]&0x01 != 0
				continue
			}
			width := 1
			if wide {
				width = 2
			}
			k := min(n, r.left()/width)
			if k == 0 { // half a character: malformed
				r.skip(r.left())
				continue
			}
			s, _ := chars(r.take(k*width), k, wide)
			sb.WriteString(s)
			n -= k
		}
		r.skip(4*runs + ext)
		out = append(out, sb.String())
	}
	return out
}

// isDateFormat reports whether number format id (built in, or custom in
// formats) shows a date or a time.
func isDateFormat(id uint16, formats map[uint16]string) bool {
	switch {
	case id >= 14 && id <= 22, id >= 27 && id <= 36, id >= 45 && id <= 47, id >= 50 && id <= 58:
		return true
	}
	f, ok := formats[id]
	if !ok {
		return false
	}
	// Leave out quoted text, escaped characters and bracketed parts
	// (colours, conditions; [h], [m] and [s] are elapsed times).
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		switch c := f[i]; c {
		case '"':
			for i++; i < len(f) && f[i] != '"'; i++ {
			}
		case '\\', '_', '*':
			i++
		case '[':
			j := strings.IndexByte(f[i:], ']')
			if j < 0 {
				return false
			}
			inner := strings.ToLower(f[i+1 : i+j])
			if strings.Trim(inner, "hms") == "" && inner != "" {
				return true
			}
			i += j
		default:
			b.WriteByte(c)
		}
	}
	return strings.ContainsAny(strings.ToLower(b.String()), "ymdhs")
}
