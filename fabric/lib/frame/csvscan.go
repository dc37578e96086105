package frame

import (
	"bytes"
	"fmt"
	"io"
)

// This file cuts CSV text into chunks of whole rows (splitter) and splits a
// chunk into fields (tokenize), following RFC 4180: fields are separated by
// commas, rows by \n or \r\n; a field that starts with a double quote runs
// to the closing quote, may hold commas, newlines and doubled quotes ("").
// Text after a closing quote is kept, and a quote inside an unquoted field
// is an ordinary character. Blank lines are skipped.

// maxChunk bounds a chunk: field positions are int32.
const maxChunk = 1<<31 - 1

// chunkBytes is the text a chunk after the first holds at most (unless one
// row is longer): with a few chunks in flight, it bounds the memory a
// large CSV takes whatever the width of its rows.
const chunkBytes = 4 << 20

// chunk is a run of whole CSV rows.
type chunk struct {
	data []byte
	line int // the line data starts on (1-based)
	rows int // rows counted by the splitter (an upper bound)
}

// splitter reads CSV text and cuts it into chunks of about batch rows.
type splitter struct {
	r     io.Reader
	carry []byte // bytes read past the last cut
	eof   bool
	line  int
	// size is the buffer size for the next chunk, learnt from the last.
	size int
	free chan []byte
}

func newSplitter(r io.Reader) *splitter {
	return &splitter{r: r, line: 1, size: 1 << 20, free: make(chan []byte, 2)}
}

// recycle gives a chunk's buffer back for a later chunk.
func (s *splitter) recycle(b []byte) {
	select {
	case s.free <- b[:0]:
	default:
	}
}

func (s *splitter) buffer() []byte {
	for {
		select {
		case b := <-s.free:
			if cap(b) >= s.size {
				return b
			}
			continue
		default:
		}
		return make([]byte, 0, s.size)
	}
}

// next returns the next chunk of up to batch rows, or io.EOF. A chunk
// ends early, on a row boundary, once it holds maxBytes: wide rows make
// smaller batches, so that the text in flight stays bounded.
func (s *splitter) next(batch, maxBytes int) (*chunk, error) {
	buf := append(s.buffer(), s.carry...)
	s.carry = s.carry[:0]
	var (
		scan, cut, rows, lines, cutLines int
		inQuote                          bool
	)
	for {
		for rows < batch && cut < maxBytes {
			i := bytes.IndexByte(buf[scan:], '\n')
			if i < 0 {
				break
			}
			seg := buf[scan : scan+i]
			if inQuote || bytes.IndexByte(seg, '"') >= 0 {
				inQuote = scanQuotes(seg, inQuote)
			}
			scan += i + 1
			lines++
			if !inQuote {
				rows++
				cut, cutLines = scan, lines
			}
		}
		if rows >= batch || cut >= maxBytes {
			break
		}
		if s.eof {
			if len(buf) > cut {
				rows++
			}
			cut = len(buf)
			break
		}
		if len(buf) == cap(buf) {
			if cap(buf) >= maxChunk {
				return nil, fmt.Errorf("line %d: row too long", s.line+lines)
			}
			nb := make([]byte, len(buf), min(2*cap(buf)+4096, maxChunk))
			copy(nb, buf)
			buf = nb
		}
		n, err := s.r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			s.eof = true
		} else if err != nil {
			return nil, err
		}
	}
	if cut == 0 {
		return nil, io.EOF
	}
	s.carry = append(s.carry, buf[cut:]...)
	c := &chunk{data: buf[:cut], line: s.line, rows: rows}
	s.line += cutLines
	// Size the next buffer for a chunk like this one and some slack,
	// rounded up to a MiB so that recycled buffers stay usable. (The carry
	// starts the next chunk: it needs no room of its own.)
	if rows >= batch || cut >= maxBytes {
		const mib = 1 << 20
		s.size = max(s.size, (cut+cut/4+mib-1)/mib*mib)
	}
	return c, nil
}

// scanQuotes follows the quoting state through one line (without its
// newline) and reports whether a quoted field is still open at its end.
func scanQuotes(seg []byte, inQuote bool) bool {
	atStart := !inQuote
	for i := 0; i < len(seg); i++ {
		ch := seg[i]
		switch {
		case inQuote:
			if ch == '"' {
				if i+1 < len(seg) && seg[i+1] == '"' {
					i++
				} else {
					inQuote = false
				}
			}
		case ch == ',':
			atStart = true
		case ch == '"' && atStart:
			inQuote = true
			atStart = false
		default:
			atStart = false
		}
	}
	return inQuote
}

// tokenError is a malformed row.
type tokenError struct {
	line int
	msg  string
}

// tokenizer splits chunks into fields.
type tokenizer struct {
	ncols int // fields per row; 0 until the header is read
}

// tokenize splits up to maxRows rows of data, starting at offset p on the
// given line, into b (appending). Fields are unescaped in place. It returns
// the offset and line after the last row read.
func (t *tokenizer) tokenize(data []byte, p, line, maxRows int, b *textBatch) (int, int, *tokenError) {
	n := len(data)
	b.data = data
	for p < n && maxRows > 0 {
		// Skip blank lines.
		if data[p] == '\n' {
			p++
			line++
			continue
		}
		if data[p] == '\r' && (p+1 == n || data[p+1] == '\n') {
			p += 2
			line++
			continue
		}
		rowLine := line
		nf := 0
		lineEnd := -1
		for {
			if p < n && data[p] == '"' {
				w, r := p, p+1
				for {
					i := bytes.IndexByte(data[r:], '"')
					if i < 0 {
						return p, line, &tokenError{rowLine, "quoted field is not closed"}
					}
					line += bytes.Count(data[r:r+i], []byte{'\n'})
					copy(data[w:], data[r:r+i])
					w += i
					r += i + 1
					if r < n && data[r] == '"' {
						data[w] = '"'
						w++
						r++
						continue
					}
					break
				}
				// Keep what follows the closing quote, up to the separator.
				for r < n && data[r] != ',' && data[r] != '\n' {
					if data[r] == '\r' && (r+1 == n || data[r+1] == '\n') {
						r++
						continue
					}
					data[w] = data[r]
					w++
					r++
				}
				b.pos = append(b.pos, int32(p), int32(w))
				p = r
				lineEnd = -1
			} else {
				if lineEnd < p {
					if i := bytes.IndexByte(data[p:], '\n'); i >= 0 {
						lineEnd = p + i
					} else {
						lineEnd = n
					}
				}
				end := lineEnd
				if i := bytes.IndexByte(data[p:lineEnd], ','); i >= 0 {
					end = p + i
				} else if end > p && data[end-1] == '\r' {
					end--
				}
				b.pos = append(b.pos, int32(p), int32(end))
				if end < lineEnd && data[end] == '\r' {
					end = lineEnd
				}
				p = end
			}
			nf++
			if p >= n || data[p] == '\n' {
				p++
				line++
				break
			}
			p++ // the comma
		}
		if t.ncols == 0 {
			t.ncols = nf
			b.ncols = nf
		} else if nf != t.ncols {
			b.pos = b.pos[:len(b.pos)-2*nf]
			return p, line, &tokenError{rowLine, fmt.Sprintf("wrong number of fields (%d, want %d)", nf, t.ncols)}
		}
		b.lines = append(b.lines, int32(rowLine))
		b.rows++
		maxRows--
	}
	return min(p, n), line, nil
}
