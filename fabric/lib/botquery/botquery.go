// Package botquery is the restricted query of "@" bots, "key = value"
// pairs joined by "&": parsed (Parse, ParseList) and written (Format).
// The engine reads its bots' arguments through it, and the deployment
// analysis the datasets and streams a step names; it imports nothing of
// the module, so that either stays a short import away.
package botquery

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// SyntaxError is an error in the query of a step at a 1-based column
// (counted in characters).
type SyntaxError struct {
	Col int
	Msg string
}

// Error gives the column and what is wrong there.
func (e *SyntaxError) Error() string { return fmt.Sprintf("col %d: %s", e.Col, e.Msg) }

// Param is one "key = value" pair of a restricted query.
type Param struct {
	Key    string
	Value  string
	Quoted bool // the value was written in quotes (so it is a string)
	Col    int  // 1-based column of the key
}

// Parse parses the restricted query of "@" bots: pairs "key = value"
// joined by "&". A key is a bare name of letters, digits, '_', '.' and '-',
// or any text in backquotes (`New Name`). A value is either a text in
// single or double quotes, in which the quote doubled stands for one quote
// and backslashes are literal (so regexes need no escaping), or a bare word
// or number: a run of characters other than white space, quotes, '=' and
// '&'. For example:
//
//	host = 'web-1' & cpu = 93.5 & note = 'it''s' & re = "\d+ \w+"
//
// The empty query has no parameters. A key given twice is an error. Errors
// are *SyntaxError, positioned on the 1-based column.
func Parse(query string) (map[string]string, error) {
	ps, err := ParseList(query)
	if err != nil {
		return nil, err
	}
	m := make(map[string]string, len(ps))
	for _, p := range ps {
		m[p.Key] = p.Value
	}
	return m, nil
}

// paramScanner scans a restricted query.
type paramScanner struct {
	src string
	pos int // byte offset
}

func (s *paramScanner) col(off int) int { return utf8.RuneCountInString(s.src[:off]) + 1 }

func (s *paramScanner) errAt(off int, format string, args ...any) error {
	return &SyntaxError{Col: s.col(off), Msg: fmt.Sprintf(format, args...)}
}

func (s *paramScanner) skipSpace() {
	for s.pos < len(s.src) {
		switch s.src[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func isKeyByte(c byte) bool {
	return c == '_' || c == '.' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isBareByte(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\'', '"', '`', '=', '&':
		return false
	}
	return true
}

// describe names the text at off for an error message.
func (s *paramScanner) describe(off int) string {
	if off >= len(s.src) {
		return "the end of the query"
	}
	r, _ := utf8.DecodeRuneInString(s.src[off:])
	return fmt.Sprintf("%q", r)
}

// ParseList parses a restricted query into its pairs, in order.
func ParseList(query string) ([]Param, error) {
	s := &paramScanner{src: query}
	var out []Param
	seen := map[string]bool{}
	s.skipSpace()
	if s.pos == len(s.src) {
		return nil, nil
	}
	for {
		p, err := s.pair()
		if err != nil {
			return nil, err
		}
		if seen[p.Key] {
			return nil, &SyntaxError{Col: p.Col, Msg: fmt.Sprintf("parameter '%s' is given twice", p.Key)}
		}
		seen[p.Key] = true
		out = append(out, p)
		s.skipSpace()
		if s.pos == len(s.src) {
			return out, nil
		}
		if s.src[s.pos] != '&' {
			return nil, s.errAt(s.pos, "expected '&' between parameters, found %s", s.describe(s.pos))
		}
		s.pos++
		s.skipSpace()
		if s.pos == len(s.src) {
			return nil, s.errAt(s.pos, "expected a parameter after '&'")
		}
	}
}

func (s *paramScanner) pair() (Param, error) {
	start := s.pos
	var key string
	switch {
	case s.src[s.pos] == '`':
		end := strings.IndexByte(s.src[s.pos+1:], '`')
		if end < 0 {
			return Param{}, s.errAt(start, "unterminated `name`")
		}
		key = s.src[s.pos+1 : s.pos+1+end]
		if key == "" {
			return Param{}, s.errAt(start, "empty parameter name")
		}
		s.pos += end + 2
	case isKeyByte(s.src[s.pos]):
		for s.pos < len(s.src) && isKeyByte(s.src[s.pos]) {
			s.pos++
		}
		key = s.src[start:s.pos]
	default:
		return Param{}, s.errAt(s.pos, "expected a parameter name, found %s", s.describe(s.pos))
	}
	p := Param{Key: key, Col: s.col(start)}
	s.skipSpace()
	if s.pos >= len(s.src) || s.src[s.pos] != '=' {
		return Param{}, s.errAt(s.pos, "expected '=' after '%s', found %s", key, s.describe(s.pos))
	}
	s.pos++
	if s.pos < len(s.src) && s.src[s.pos] == '=' {
		return Param{}, s.errAt(s.pos-1, "use '=' rather than '==' in parameters")
	}
	s.skipSpace()
	if s.pos >= len(s.src) {
		return Param{}, s.errAt(s.pos, "expected a value for '%s', found the end of the query", key)
	}
	switch c := s.src[s.pos]; {
	case c == '\'' || c == '"':
		open := s.pos
		s.pos++
		var b strings.Builder
		for {
			if s.pos >= len(s.src) {
				return Param{}, s.errAt(open, "unterminated quoted value of '%s'", key)
			}
			if s.src[s.pos] == c {
				if s.pos+1 < len(s.src) && s.src[s.pos+1] == c {
					b.WriteByte(c)
					s.pos += 2
					continue
				}
				s.pos++
				break
			}
			b.WriteByte(s.src[s.pos])
			s.pos++
		}
		p.Value, p.Quoted = b.String(), true
	case isBareByte(c):
		vs := s.pos
		for s.pos < len(s.src) && isBareByte(s.src[s.pos]) {
			s.pos++
		}
		p.Value = s.src[vs:s.pos]
	default:
		return Param{}, s.errAt(s.pos, "expected a value for '%s', found %s", key, s.describe(s.pos))
	}
	return p, nil
}

// Format writes the restricted query of the pairs of m whose keys
// are in keys, in that order: a key bare when it can be (in backquotes
// otherwise), each value in single quotes. Parse reads it back as
// those pairs.
func Format(keys []string, m map[string]string) string {
	var b strings.Builder
	for _, k := range keys {
		v, ok := m[k]
		if !ok {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(" & ")
		}
		bare := k != ""
		for i := 0; i < len(k); i++ {
			bare = bare && isKeyByte(k[i])
		}
		if bare {
			b.WriteString(k)
		} else {
			b.WriteString("`" + k + "`")
		}
		b.WriteString(" = '")
		b.WriteString(strings.ReplaceAll(v, "'", "''"))
		b.WriteByte('\'')
	}
	return b.String()
}
