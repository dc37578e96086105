package cfxql

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// tokKind is the kind of a token.
type tokKind int

const (
	tEOF    tokKind = iota
	tWord           // a bare word: a column name, a keyword, "-10d"
	tNumber         // a number: 42, -1.5, 2e3
	tString         // a quoted string (text holds the unescaped value)
	tName           // a backquoted column name (text holds the name)
	tSym            // an operator or punctuation: = != ( ) [ ] , & | ...
)

// token is one lexeme of a query. col is its 1-based column in
// characters, raw its source text.
type token struct {
	kind tokKind
	text string
	raw  string
	col  int
}

// describe renders a token for an error message.
func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "the end of the query"
	case tString:
		return t.raw
	}
	return "'" + t.raw + "'"
}

// symbols are the operator and punctuation symbols, longest first.
var symbols = []string{
	"!^~", "!~$",
	"==", "!=", "<>", ">=", "<=", "!~", "!?", "^~", "~$", "&&", "||",
	"=", ">", "<", "~", "?", "&", "|", "(", ")", "[", "]", ",", "*",
}

// isWordByte reports whether c may appear in a bare word.
func isWordByte(c byte) bool {
	return c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// lexer splits a query into tokens.
type lexer struct {
	src string
	pos int // byte offset
}

// colAt returns the 1-based character column of byte offset off.
func (l *lexer) colAt(off int) int { return utf8.RuneCountInString(l.src[:off]) + 1 }

func (l *lexer) errAt(off int, format string, args ...any) *SyntaxError {
	return &SyntaxError{Col: l.colAt(off), Msg: fmt.Sprintf(format, args...)}
}

// lex returns every token of src, ending with a tEOF token.
func lex(src string) ([]token, error) {
	l := &lexer{src: src}
	var toks []token
	for {
		t, err := l.next()
		if err != nil {
			return nil, err
		}
		toks = append(toks, t)
		if t.kind == tEOF {
			return toks, nil
		}
	}
}

func (l *lexer) next() (token, error) {
	for l.pos < len(l.src) && strings.IndexByte(" \t\r\n\f\v", l.src[l.pos]) >= 0 {
		l.pos++
	}
	start := l.pos
	if start >= len(l.src) {
		return token{kind: tEOF, col: l.colAt(start)}, nil
	}
	c := l.src[start]
	switch {
	case c == '\'' || c == '"':
		return l.quoted(c)
	case c == '`':
		return l.backquoted()
	case isWordByte(c), (c == '-' || c == '+') && start+1 < len(l.src) && (isDigit(l.src[start+1]) || l.src[start+1] == '.' && start+2 < len(l.src) && isDigit(l.src[start+2])):
		return l.word(), nil
	}
	for _, s := range symbols {
		if strings.HasPrefix(l.src[start:], s) {
			l.pos += len(s)
			return token{kind: tSym, text: s, raw: s, col: l.colAt(start)}, nil
		}
	}
	r, _ := utf8.DecodeRuneInString(l.src[start:])
	if unicode.IsLetter(r) {
		return token{}, l.errAt(start, "unexpected character '%c' (write such column names in backquotes: `name`)", r)
	}
	return token{}, l.errAt(start, "unexpected character %q", r)
}

// word lexes a bare word or a number (with an optional sign and an
// exponent), and the hyphenated keyword not-in.
func (l *lexer) word() token {
	start := l.pos
	if c := l.src[l.pos]; c == '-' || c == '+' {
		l.pos++
	}
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		if isWordByte(c) {
			l.pos++
			continue
		}
		// An exponent sign: 1e+5, 2.5E-3.
		if (c == '+' || c == '-') && l.pos+1 < len(l.src) && isDigit(l.src[l.pos+1]) &&
			isNumber(l.src[start:l.pos]+"0") && strings.ContainsAny(l.src[l.pos-1:l.pos], "eE") {
			l.pos++
			continue
		}
		break
	}
	raw := l.src[start:l.pos]
	if strings.EqualFold(raw, "not") && strings.HasPrefix(strings.ToLower(l.src[l.pos:]), "-in") &&
		(l.pos+3 == len(l.src) || !isWordByte(l.src[l.pos+3])) {
		l.pos += 3
		raw = l.src[start:l.pos]
	}
	kind := tWord
	if isNumber(raw) {
		kind = tNumber
	}
	return token{kind: kind, text: raw, raw: raw, col: l.colAt(start)}
}

// isNumber reports whether s is a decimal number: an optional sign,
// digits with an optional fraction (or a fraction alone), and an optional
// exponent.
func isNumber(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	digits := 0
	for i < len(s) && isDigit(s[i]) {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			i++
		}
		exp := 0
		for i < len(s) && isDigit(s[i]) {
			i++
			exp++
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(s)
}

// quoted lexes a string in single or double quotes. Backslash escapes
// \\, \', \", \n, \t and \r; any other backslash is kept (so regexes
// like '\d+' need no doubling).
func (l *lexer) quoted(q byte) (token, error) {
	start := l.pos
	l.pos++
	var b strings.Builder
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == q:
			l.pos++
			return token{kind: tString, text: b.String(), raw: l.src[start:l.pos], col: l.colAt(start)}, nil
		case c == '\\' && l.pos+1 < len(l.src):
			e := l.src[l.pos+1]
			switch e {
			case '\\', '\'', '"':
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			default:
				b.WriteByte('\\')
				l.pos++
				continue
			}
			l.pos += 2
		default:
			b.WriteByte(c)
			l.pos++
		}
	}
	return token{}, l.errAt(start, "unclosed quote %c", q)
}

// backquoted lexes a column name in backquotes; a doubled backquote
// stands for one.
func (l *lexer) backquoted() (token, error) {
	start := l.pos
	l.pos++
	var b strings.Builder
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		if c == '`' {
			if l.pos+1 < len(l.src) && l.src[l.pos+1] == '`' {
				b.WriteByte('`')
				l.pos += 2
				continue
			}
			l.pos++
			if b.Len() == 0 {
				return token{}, l.errAt(start, "empty column name")
			}
			return token{kind: tName, text: b.String(), raw: l.src[start:l.pos], col: l.colAt(start)}, nil
		}
		b.WriteByte(c)
		l.pos++
	}
	return token{}, l.errAt(start, "unclosed quote `")
}
