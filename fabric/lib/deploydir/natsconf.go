package deploydir

import (
	"fmt"
)

// maxNATS bounds the message-bus configuration read.
const maxNATS = 4 << 20

// Block is a top-level entry of a NATS configuration: its key and the
// byte range [Start, End) of the entry, from the key's first byte to the
// end of its value (the closing brace, or the line's end).
type Block struct {
	Key        string
	Start, End int
}

// ParseNATS returns the top-level entries of a NATS configuration. It
// knows the syntax's comments (# and //), quoted strings, and nested
// braces and brackets; a brace left open or closed twice is an error.
func ParseNATS(data []byte) ([]Block, error) {
	if len(data) > maxNATS {
		return nil, fmt.Errorf("%s: over %d MB", NATS, maxNATS>>20)
	}
	var out []Block
	depth := 0
	line := 1
	var cur *Block
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case c == '\n':
			line++
			if depth == 0 && cur != nil {
				cur.End = i
				out = append(out, *cur)
				cur = nil
			}
		case c == '#' || c == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			i--
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(data) && data[j] != c && data[j] != '\n' {
				if data[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(data) || data[j] != c {
				return nil, fmt.Errorf("%s: line %d: a quoted string is not closed", NATS, line)
			}
			i = j
		case c == '{' || c == '[' || c == '(':
			depth++
		case c == '}' || c == ']' || c == ')':
			depth--
			if depth < 0 {
				return nil, fmt.Errorf("%s: line %d: %q closes nothing", NATS, line, c)
			}
			if depth == 0 && cur != nil {
				cur.End = i + 1
				out = append(out, *cur)
				cur = nil
			}
		case depth == 0 && cur == nil && c != ' ' && c != '\t' && c != '\r' && c != ',' && c != ';':
			j := i
			for j < len(data) && isKeyByte(data[j]) {
				j++
			}
			if j == i {
				return nil, fmt.Errorf("%s: line %d: unexpected %q", NATS, line, c)
			}
			cur = &Block{Key: string(data[i:j]), Start: i}
			i = j - 1
		}
	}
	if depth != 0 {
		return nil, fmt.Errorf("%s: a brace is not closed", NATS)
	}
	if cur != nil {
		cur.End = len(data)
		out = append(out, *cur)
	}
	return out, nil
}

func isKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == '$'
}

// RemoveJetStream takes the top-level jetstream entry (any case) out of
// a NATS configuration, with the rest of its last line.
func RemoveJetStream(data []byte) ([]byte, bool, error) {
	blocks, err := ParseNATS(data)
	if err != nil {
		return nil, false, err
	}
	for _, b := range blocks {
		if !equalFold(b.Key, "jetstream") {
			continue
		}
		start, end := b.Start, b.End
		for start > 0 && (data[start-1] == ' ' || data[start-1] == '\t') {
			start--
		}
		for end < len(data) && data[end] != '\n' {
			end++
		}
		if (start == 0 || data[start-1] == '\n') && end < len(data) {
			end++
		}
		out := append(append([]byte{}, data[:start]...), data[end:]...)
		return out, true, nil
	}
	return data, false, nil
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i]|0x20, b[i]|0x20
		if x != y {
			return false
		}
	}
	return true
}
