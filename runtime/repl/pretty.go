package repl

import (
	"strings"

	"go.starlark.net/starlark"
)

// width is the line length under which a value prints on one line.
const width = 80

// Pretty renders a value as the REPL prints it: its repr when short, and
// lists, tuples and dicts broken over indented lines when long.
func Pretty(v starlark.Value) string {
	var b strings.Builder
	pretty(&b, v, 0)
	return b.String()
}

func pretty(b *strings.Builder, v starlark.Value, indent int) {
	repr := v.String()
	if len(repr)+indent <= width {
		b.WriteString(repr)
		return
	}
	pad := strings.Repeat("    ", indent/4+1)
	end := strings.Repeat("    ", indent/4)
	switch x := v.(type) {
	case *starlark.Dict:
		b.WriteString("{\n")
		for _, item := range x.Items() {
			b.WriteString(pad)
			b.WriteString(item[0].String())
			b.WriteString(": ")
			pretty(b, item[1], indent+4)
			b.WriteString(",\n")
		}
		b.WriteString(end + "}")
	case *starlark.List:
		seq(b, x, "[", "]", pad, end, indent)
	case starlark.Tuple:
		seq(b, x, "(", ")", pad, end, indent)
	default:
		b.WriteString(repr)
	}
}

func seq(b *strings.Builder, x starlark.Indexable, open, close, pad, end string, indent int) {
	b.WriteString(open + "\n")
	if scalars(x) {
		// Fill lines with the elements, as pprint's compact form does.
		line := pad
		for i := 0; i < x.Len(); i++ {
			item := x.Index(i).String() + ","
			if len(line) > len(pad) && len(line)+1+len(item) > width {
				b.WriteString(line + "\n")
				line = pad
			}
			if len(line) > len(pad) {
				line += " "
			}
			line += item
		}
		b.WriteString(line + "\n" + end + close)
		return
	}
	for i := 0; i < x.Len(); i++ {
		b.WriteString(pad)
		pretty(b, x.Index(i), indent+4)
		b.WriteString(",\n")
	}
	b.WriteString(end + close)
}

// scalars reports whether a sequence holds no lists, tuples or dicts.
func scalars(x starlark.Indexable) bool {
	for i := 0; i < x.Len(); i++ {
		switch x.Index(i).(type) {
		case *starlark.List, starlark.Tuple, *starlark.Dict:
			return false
		}
	}
	return true
}
