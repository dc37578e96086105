package frame

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
)

// jsonSource reads a JSON array of records, or JSON lines, as batches.
// The columns are the keys of the records of the first batch in the order
// first seen; their types are inferred from those records: int64 when
// every number is integral, float64 when some have a fraction, bool,
// date or timestamp when every string is an ISO 8601 date or timestamp,
// string otherwise, and object (JSON text) for nested objects and arrays.
// A leading UTF-8 byte order mark is skipped.
type jsonSource struct {
	name   string
	lines  bool
	r      *bufio.Reader
	cr     *countReader
	dec    *json.Decoder
	line   int // JSON lines: the line last read
	elem   int // JSON array: the records read
	batch  int
	sample int
	cols   []valueColumn
	index  map[string]int
	schema *arrow.Schema
	first  arrow.Record
	rows   [][]any
	at     []int // the line (JSONL) or record number (array) of each row
	err    error
	done   bool // the last record has been read
}

func newJSONSource(r *bufio.Reader, name string, lines bool, o options) (*jsonSource, error) {
	s := &jsonSource{name: name, lines: lines, r: r, batch: o.batch, index: map[string]int{}}
	if bom, _ := r.Peek(3); bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
		r.Discard(3)
	}
	if !lines {
		s.cr = &countReader{r: r}
		s.dec = json.NewDecoder(s.cr)
		s.dec.UseNumber()
		tok, err := s.dec.Token()
		if err == io.EOF {
			return nil, fmt.Errorf("%s: empty file: want a JSON array of records", name)
		}
		if err != nil {
			return nil, s.syntaxError(err)
		}
		if d, ok := tok.(json.Delim); !ok || d != '[' {
			return nil, fmt.Errorf("%s: want a JSON array of records (or use the jsonl format for JSON lines)", name)
		}
	}
	// Read the first batch, learning the columns.
	var keys []string
	var vals [][]any
	for len(vals) < s.batch {
		ks, vs, err := s.record()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		row := make([]any, 0, len(ks))
		for i, k := range ks {
			c, ok := s.index[k]
			if !ok {
				c = len(keys)
				s.index[k] = c
				keys = append(keys, k)
			}
			for len(row) <= c {
				row = append(row, nil)
			}
			row[c] = vs[i]
		}
		vals = append(vals, row)
	}
	if lines && len(vals) == 0 {
		// A JSON-lines file with no record has no columns either.
		return nil, fmt.Errorf("%s: empty file: no JSON records", name)
	}
	for i, row := range vals {
		for len(row) < len(keys) {
			row = append(row, nil)
		}
		vals[i] = row
	}
	s.cols = inferValues(keys, vals, true)
	s.sample = len(vals)
	s.schema = valueSchema(s.cols)
	s.rows = vals
	rec, err := s.build()
	if err != nil {
		return nil, err
	}
	s.first = rec
	return s, nil
}

func (s *jsonSource) Schema() *arrow.Schema { return s.schema }

// build turns s.rows into a record.
func (s *jsonSource) build() (arrow.Record, error) {
	rec, verr := buildValues(s.schema, s.cols, s.rows)
	if verr != nil {
		where := fmt.Sprintf("record %d", s.at[verr.row])
		if s.lines {
			where = fmt.Sprintf("line %d", s.at[verr.row])
		}
		vc := s.cols[verr.col]
		return nil, fmt.Errorf("%s: %s, key %q: cannot read %s as %s (the type inferred from the first %d records)",
			s.name, where, vc.name, describeValue(verr.value), vc.typeName(), s.sample)
	}
	s.rows = s.rows[:0]
	s.at = s.at[:0]
	return rec, nil
}

func (s *jsonSource) Next() (arrow.Record, error) {
	if s.err != nil {
		return nil, s.err
	}
	if s.first != nil {
		rec := s.first
		s.first = nil
		return rec, nil
	}
	for len(s.rows) < s.batch {
		ks, vs, err := s.record()
		if err == io.EOF {
			break
		}
		if err != nil {
			s.err = err
			return nil, err
		}
		row := make([]any, len(s.cols))
		for i, k := range ks {
			c, ok := s.index[k]
			if !ok {
				s.err = fmt.Errorf("%s: %s: key %q is not in the first %d records", s.name, s.where(), k, s.sample)
				return nil, s.err
			}
			row[c] = vs[i]
		}
		s.rows = append(s.rows, row)
	}
	if len(s.rows) == 0 {
		s.err = io.EOF
		return nil, io.EOF
	}
	rec, err := s.build()
	if err != nil {
		s.err = err
		return nil, err
	}
	return rec, nil
}

func (s *jsonSource) where() string {
	if s.lines {
		return fmt.Sprintf("line %d", s.line)
	}
	return fmt.Sprintf("record %d", s.elem)
}

// record reads the next record.
func (s *jsonSource) record() ([]string, []any, error) {
	if s.done {
		return nil, nil, io.EOF
	}
	ks, vs, err := s.next()
	if err == io.EOF {
		s.done = true
	}
	return ks, vs, err
}

// next reads the next record from the input.
func (s *jsonSource) next() ([]string, []any, error) {
	if s.lines {
		for {
			line, err := readLine(s.r)
			if len(line) == 0 && err != nil {
				if err == io.EOF {
					return nil, nil, io.EOF
				}
				return nil, nil, fmt.Errorf("%s: %w", s.name, err)
			}
			s.line++
			line = bytes.TrimSpace(line)
			if len(line) == 0 {
				continue
			}
			jp := jparser{b: line}
			ks, vs, perr := jp.record()
			if perr != nil {
				return nil, nil, fmt.Errorf("%s: line %d, column %d: %v", s.name, s.line, jp.p+1, perr)
			}
			s.at = append(s.at, s.line)
			return ks, vs, nil
		}
	}
	if !s.dec.More() {
		if _, err := s.dec.Token(); err != nil {
			return nil, nil, s.syntaxError(err)
		}
		end := s.dec.InputOffset()
		if _, err := s.dec.Token(); err != io.EOF {
			return nil, nil, fmt.Errorf("%s: %s: data after the end of the array", s.name, s.cr.position(s.cr.skipSpace(end)))
		}
		return nil, nil, io.EOF
	}
	// More left the decoder at the record, or at the comma before it.
	base := s.dec.InputOffset()
	if b, ok := s.cr.from(base); ok && len(b) > 0 && b[0] == ',' {
		base++
	}
	var raw json.RawMessage
	if err := s.dec.Decode(&raw); err != nil {
		return nil, nil, s.decodeError(err, base)
	}
	// The decoder is now just past the record (InputOffset before Decode
	// would point before the comma and blanks ahead of it).
	start := s.dec.InputOffset() - int64(len(raw))
	s.elem++
	jp := jparser{b: raw}
	ks, vs, err := jp.record()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: record %d (%s): %v", s.name, s.elem, s.cr.position(start), err)
	}
	s.at = append(s.at, s.elem)
	return ks, vs, nil
}

// decodeError adds its position to an error of Decode reading the value
// at offset base. The offsets of Decode's syntax errors do not count the
// bytes Token consumed (the array's brackets and commas): the value is
// decoded again, alone, for the offset of the error within it.
func (s *jsonSource) decodeError(err error, base int64) error {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return s.syntaxError(err)
	}
	if b, ok := s.cr.from(base); ok {
		var raw json.RawMessage
		var se2 *json.SyntaxError
		if err := json.NewDecoder(bytes.NewReader(b)).Decode(&raw); errors.As(err, &se2) && se2.Offset > 0 {
			return fmt.Errorf("%s: %s: %v", s.name, s.cr.position(base+se2.Offset-1), se2)
		}
	}
	return fmt.Errorf("%s: record %d (%s): %v", s.name, s.elem+1, s.cr.position(s.cr.skipSpace(base)), err)
}

// syntaxError adds its position to a JSON decoding error (of Token, whose
// offsets are right).
func (s *jsonSource) syntaxError(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("%s: %s: %v", s.name, s.cr.position(se.Offset), err)
	}
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%s: %s: unexpected end of JSON input", s.name, s.cr.position(s.cr.end()))
	}
	return fmt.Errorf("%s: %v", s.name, err)
}

func (s *jsonSource) Close() error {
	if s.first != nil {
		s.first.Release()
		s.first = nil
	}
	if s.err == nil {
		s.err = errors.New("source is closed")
	}
	return nil
}

// readLine reads a line of any length (without its newline).
func readLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		long := append([]byte(nil), line...)
		for err == bufio.ErrBufferFull {
			line, err = r.ReadSlice('\n')
			long = append(long, line...)
		}
		line = long
	}
	if err == io.EOF && len(line) > 0 {
		err = nil
	}
	return bytes.TrimSuffix(line, []byte{'\n'}), err
}

// countReader remembers the last bytes read, and how many lines came
// before them, to turn a byte offset into a line and column.
type countReader struct {
	r      io.Reader
	off    int64 // offset of window[0]
	lines  int   // newlines before window[0]
	window []byte
}

func (c *countReader) Read(p []byte) (int, error) {
	const keep = 256 << 10
	n, err := c.r.Read(p)
	c.window = append(c.window, p[:n]...)
	if len(c.window) > 2*keep {
		drop := len(c.window) - keep
		c.lines += bytes.Count(c.window[:drop], []byte{'\n'})
		c.off += int64(drop)
		c.window = append(c.window[:0], c.window[drop:]...)
	}
	return n, err
}

// from returns the bytes read from offset off on, when they are still
// kept.
func (c *countReader) from(off int64) ([]byte, bool) {
	i := off - c.off
	if i < 0 || i > int64(len(c.window)) {
		return nil, false
	}
	return c.window[i:], true
}

// skipSpace returns the offset of the first byte from off on that is not
// JSON white space (as far as it is known).
func (c *countReader) skipSpace(off int64) int64 {
	b, _ := c.from(off)
	for _, ch := range b {
		if ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r' {
			break
		}
		off++
	}
	return off
}

// end returns the offset after the last byte read.
func (c *countReader) end() int64 { return c.off + int64(len(c.window)) }

// position renders an offset as "line L, column C", or "offset N" when it
// is no longer known.
func (c *countReader) position(off int64) string {
	i := off - c.off
	if i < 0 || i > int64(len(c.window)) {
		return fmt.Sprintf("offset %d", off)
	}
	before := c.window[:i]
	line := c.lines + bytes.Count(before, []byte{'\n'}) + 1
	col := len(before) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return fmt.Sprintf("line %d, column %d", line, col)
}
