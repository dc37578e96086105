// Package aql is the part of ArangoDB's query language (AQL) that users
// of the graph store write: FOR ... IN, FILTER, SORT, LIMIT, LET, RETURN
// [DISTINCT], COLLECT, bind parameters, traversals and shortest paths.
// A query outside it fails as ArangoDB's parser does: errorNum 1501 with
// the position.
package aql

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind is a token's kind.
type Kind int

// The token kinds.
const (
	EOF Kind = iota
	Ident
	Keyword
	String
	Number
	BindParam // @name
	BindColl  // @@name
	Operator  // operators and punctuation
)

// Token is a token of a query, with where it starts (1-based line and
// column).
type Token struct {
	Kind      Kind
	Text      string // identifier, keyword (upper case), operator, or the string's value
	Line, Col int
	Offset    int
}

// keywords are AQL's keywords (matched without regard to case).
var keywords = map[string]bool{
	"FOR": true, "IN": true, "FILTER": true, "SORT": true, "LIMIT": true, "LET": true, "RETURN": true,
	"DISTINCT": true, "COLLECT": true, "INTO": true, "WITH": true, "COUNT": true, "AGGREGATE": true,
	"KEEP": true, "OUTBOUND": true, "INBOUND": true, "ANY": true, "ALL": true, "NONE": true, "GRAPH": true,
	"SHORTEST_PATH": true, "K_SHORTEST_PATHS": true, "K_PATHS": true, "ALL_SHORTEST_PATHS": true, "TO": true,
	"PRUNE": true, "OPTIONS": true, "ASC": true, "DESC": true, "AND": true, "OR": true, "NOT": true,
	"LIKE": true, "NULL": true, "TRUE": true, "FALSE": true, "INSERT": true, "UPDATE": true, "REPLACE": true,
	"REMOVE": true, "UPSERT": true, "WINDOW": true, "SEARCH": true, "AT": true, "LEAST": true,
}

// SyntaxError is a parse error at a position, as ArangoDB reports it.
type SyntaxError struct {
	Msg       string
	Near      string
	Line, Col int
}

// Error renders the error as ArangoDB's parser does.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("syntax error, %s near '%s' at position %d:%d", e.Msg, e.Near, e.Line, e.Col)
}

// operators are the operators and punctuation, longest first.
var operators = []string{"==", "!=", "<=", ">=", "=~", "!~", "&&", "||", "..", "::",
	"<", ">", "!", "+", "-", "*", "/", "%", "?", ":", ",", ".", "[", "]", "{", "}", "(", ")", "="}

// Lex splits a query into tokens, ending with an EOF token.
func Lex(src string) ([]Token, error) {
	l := &lexer{src: src, line: 1, col: 1}
	var out []Token
	for {
		t, err := l.next()
		if err != nil {
			return nil, err
		}
		out = append(out, t)
		if t.Kind == EOF {
			return out, nil
		}
	}
}

type lexer struct {
	src       string
	pos       int
	line, col int
}

func (l *lexer) advance(n int) {
	for i := 0; i < n && l.pos < len(l.src); i++ {
		if l.src[l.pos] == '\n' {
			l.line, l.col = l.line+1, 1
		} else if l.src[l.pos] < utf8.RuneSelf || utf8.RuneStart(l.src[l.pos]) {
			l.col++
		}
		l.pos++
	}
}

func (l *lexer) fail(msg string) error {
	return &SyntaxError{Msg: msg, Near: near(l.src[l.pos:]), Line: l.line, Col: l.col}
}

// near is the text ArangoDB quotes after "near": the rest of the query,
// cut short.
func near(rest string) string {
	if len(rest) > 32 {
		return rest[:32] + "..."
	}
	return rest
}

// skip passes white space and comments.
func (l *lexer) skip() error {
	for l.pos < len(l.src) {
		switch {
		case strings.HasPrefix(l.src[l.pos:], "//"):
			for l.pos < len(l.src) && l.src[l.pos] != '\n' {
				l.advance(1)
			}
		case strings.HasPrefix(l.src[l.pos:], "/*"):
			end := strings.Index(l.src[l.pos+2:], "*/")
			if end < 0 {
				return l.fail("unexpected unterminated comment")
			}
			l.advance(end + 4)
		case strings.ContainsRune(" \t\r\n", rune(l.src[l.pos])):
			l.advance(1)
		default:
			return nil
		}
	}
	return nil
}

func isIdentStart(r rune) bool { return r == '_' || unicode.IsLetter(r) }
func isIdentPart(r rune) bool  { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

func (l *lexer) next() (Token, error) {
	if err := l.skip(); err != nil {
		return Token{}, err
	}
	t := Token{Line: l.line, Col: l.col, Offset: l.pos}
	if l.pos >= len(l.src) {
		t.Kind = EOF
		return t, nil
	}
	rest := l.src[l.pos:]
	c := rest[0]
	r, _ := utf8.DecodeRuneInString(rest)
	switch {
	case c == '\'' || c == '"':
		s, n, err := l.quoted(rest, c)
		if err != nil {
			return t, err
		}
		t.Kind, t.Text = String, s
		l.advance(n)
	case c == '`' || c == '\u00b4':
		end := strings.IndexByte(rest[1:], c)
		if end < 0 {
			return t, l.fail("unexpected unterminated identifier")
		}
		t.Kind, t.Text = Ident, rest[1:1+end]
		l.advance(end + 2)
	case c == '@':
		kind, start := BindParam, 1
		if strings.HasPrefix(rest, "@@") {
			kind, start = BindColl, 2
		}
		n := start
		for n < len(rest) && (rest[n] == '_' || rest[n] >= 'a' && rest[n] <= 'z' || rest[n] >= 'A' && rest[n] <= 'Z' || rest[n] >= '0' && rest[n] <= '9') {
			n++
		}
		if n == start {
			return t, l.fail("unexpected bind parameter without a name")
		}
		t.Kind, t.Text = kind, rest[start:n]
		l.advance(n)
	case c >= '0' && c <= '9' || c == '.' && len(rest) > 1 && rest[1] >= '0' && rest[1] <= '9' && !strings.HasPrefix(rest, ".."):
		n := 0
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		if n < len(rest) && rest[n] == '.' && !strings.HasPrefix(rest[n:], "..") {
			n++
			for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
				n++
			}
		}
		if n < len(rest) && (rest[n] == 'e' || rest[n] == 'E') {
			m := n + 1
			if m < len(rest) && (rest[m] == '+' || rest[m] == '-') {
				m++
			}
			if m < len(rest) && rest[m] >= '0' && rest[m] <= '9' {
				for m < len(rest) && rest[m] >= '0' && rest[m] <= '9' {
					m++
				}
				n = m
			}
		}
		t.Kind, t.Text = Number, rest[:n]
		l.advance(n)
	case isIdentStart(r) || c == '$':
		n := len(string(r))
		for n < len(rest) {
			r2, size := utf8.DecodeRuneInString(rest[n:])
			if !isIdentPart(r2) {
				break
			}
			n += size
		}
		word := rest[:n]
		if up := strings.ToUpper(word); keywords[up] {
			t.Kind, t.Text = Keyword, up
		} else {
			t.Kind, t.Text = Ident, word
		}
		l.advance(n)
	default:
		for _, op := range operators {
			if strings.HasPrefix(rest, op) {
				t.Kind, t.Text = Operator, op
				l.advance(len(op))
				return t, nil
			}
		}
		return t, l.fail("unexpected character")
	}
	return t, nil
}

// quoted reads a string literal; it returns its value and its length.
func (l *lexer) quoted(rest string, q byte) (string, int, error) {
	var b strings.Builder
	for i := 1; i < len(rest); i++ {
		c := rest[i]
		switch {
		case c == q:
			return b.String(), i + 1, nil
		case c == '\\' && i+1 < len(rest):
			i++
			switch e := rest[i]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'u':
				if i+4 < len(rest) {
					var r rune
					if _, err := fmt.Sscanf(rest[i+1:i+5], "%04x", &r); err == nil {
						b.WriteRune(r)
						i += 4
						continue
					}
				}
				b.WriteByte('u')
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, l.fail("unexpected unterminated string literal")
}
