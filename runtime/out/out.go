// Package out provides the out module, through which commands print their
// results: tables, JSON, YAML and plain text go to the thread's stdout,
// notices and warnings to its stderr.
//
// out.write is the one writer of a command's result: it prints the table,
// or JSON or YAML when the command's --json or --yaml flag (declared with
// command()'s output, see package command) asks for it.
//
// Every table the shell prints has one style, shared with Go code through
// WriteTable: a header line, a rule of dashes under each column, then the
// rows; columns are left-aligned and separated by two spaces, and lines
// carry no trailing spaces. The header is bold unless colour is off. A table
// is fitted to the terminal's width (host.IO.TableColumns), long cells cut
// with an ellipsis; JSON and YAML are always whole. An empty table prints
// nothing on stdout and "no rows" on stderr, whatever its columns, so that
// scripts read no lines and people read why.
package out

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/stdlib"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

var module = doc.Module("out", `Printing results: tables, JSON, YAML and text to stdout; notices and
warnings to stderr.`, starlark.StringDict{
	"table": doc.Builtin("out.table", `table(rows, columns=None)

Prints rows as a table: a header, a rule of dashes, then one line per row,
columns left-aligned and two spaces apart. rows are dicts (or structs), or
lists when columns is given. Each column is a key, used as header too, or a
(header, key) pair. By default the columns are the keys of the first row in
order, then any new keys of later rows. Cells show None as empty, bools as
True/False, floats in their shortest form, lists of scalars joined by ", "
and other lists and dicts as compact JSON. The table is fitted to the
terminal's width (or $COLUMNS; when stdout is not a terminal and
$COLUMNS is unset, the table is left whole): the widest columns are
narrowed and their long cells cut with an ellipsis. An empty table prints nothing on stdout and "no rows" on
stderr.`, tableBuiltin),
	"json": doc.Builtin("out.json", `json(v)

Prints v as JSON indented by 2 spaces, dict keys in their order.`, jsonBuiltin),
	"yaml": doc.Builtin("out.yaml", `yaml(v)

Prints v as YAML, dict keys in their order.`, yamlBuiltin),
	"write": doc.Builtin("out.write", `write(args, v, columns=None, table=None)

Prints a command's result in the format its flags ask for: as JSON with
--json, as YAML with --yaml, else as a table. args is the command's args;
a command gets those flags by declaring them once, with command()'s
output. v is the result: printed whole as JSON or YAML, and as the rows of
the table, with columns as out.table takes them. table, when given, is
called with v instead, for a table that is not v itself: it returns the
table's rows (fewer, renamed or computed columns), or None when it
printed the result itself.`, writeBuiltin),
	"notice": doc.Builtin("out.notice", `notice(*args)

Prints args to stderr, separated by spaces and followed by a newline; for
progress and remarks that are not part of the result.`, noticeBuiltin),
	"warn": doc.Builtin("out.warn", `warn(*args)

Prints "warning: " and args to stderr, separated by spaces and followed by
a newline.`, noticeBuiltin),
	"text": doc.Builtin("out.text", `text(s)

Writes the str or bytes s to stdout as it is, adding no newline.`, textBuiltin),
})

// Module returns the out module.
func Module() starlark.Value { return module }

// WriteTable writes headers and rows to w in the shell's table style: the
// header line (bold when bold is set), a rule of dashes as wide as each
// column, then the rows. Columns are left-aligned and separated by two
// spaces; the last column is not padded. Widths count terminal cells, so
// wide (East Asian) characters count twice. Rows shorter than headers are
// padded with empty cells. When width is positive and the table is wider,
// the widest columns are narrowed until it fits (none below MinColumn
// cells), columns of free text (a cell with a space) first, names and
// numbers only when that is not enough; cells longer than their column
// are cut, ending with "…".
func WriteTable(w io.Writer, headers []string, rows [][]string, bold bool, width int) error {
	n := len(headers)
	for _, r := range rows {
		n = max(n, len(r))
	}
	if n == 0 {
		return nil
	}
	widths := make([]int, n)
	text := make([]bool, n) // columns of free text (a cell with a space)
	for i, h := range headers {
		widths[i] = Width(h)
	}
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], Width(c))
			text[i] = text[i] || strings.Contains(c, " ")
		}
	}
	fit(widths, width, text)
	fit(widths, width, nil)
	var b strings.Builder
	line := func(cells []string) string {
		var l strings.Builder
		for i := range n {
			c := ""
			if i < len(cells) {
				c = Cut(cells[i], widths[i])
			}
			l.WriteString(c)
			if i < n-1 {
				l.WriteString(strings.Repeat(" ", widths[i]-Width(c)+2))
			}
		}
		return strings.TrimRight(l.String(), " ")
	}
	head := line(headers)
	if bold && head != "" {
		head = "\x1b[1m" + head + "\x1b[0m"
	}
	b.WriteString(head)
	b.WriteByte('\n')
	rule := make([]string, n)
	for i, wd := range widths {
		rule[i] = strings.Repeat("-", wd)
	}
	b.WriteString(line(rule))
	b.WriteByte('\n')
	for _, r := range rows {
		b.WriteString(line(r))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// MinColumn is the narrowest a column is made to fit a table to the
// terminal: a table whose columns cannot all be this wide stays wider.
const MinColumn = 8

// fit narrows widths, the columns' widths, so that the table (with two
// spaces between columns) is at most width cells wide: every column that
// may be cut (all when only is nil, else those it marks) and is wider than
// a cap is cut to it, the cap being the largest that fits, and what is
// left over is given back to the cut columns from the left. width <= 0
// leaves widths alone.
func fit(widths []int, width int, only []bool) {
	cuttable := func(i int) bool { return only == nil || only[i] }
	gaps := 2 * (len(widths) - 1)
	total := func(limit int) int {
		t := gaps
		for i, w := range widths {
			if cuttable(i) {
				w = min(w, limit)
			}
			t += w
		}
		return t
	}
	widest := slices.Max(widths)
	if width <= 0 || total(widest) <= width {
		return
	}
	limit := widest
	for limit > MinColumn && total(limit) > width {
		limit--
	}
	spare := max(width-total(limit), 0)
	for i, w := range widths {
		if cuttable(i) && w > limit {
			widths[i] = limit + min(spare, w-limit)
			spare -= widths[i] - limit
		}
	}
}

// Cut returns s cut to at most width terminal cells, its last cell an
// ellipsis when something was cut. width <= 0 leaves s whole.
func Cut(s string, width int) string {
	if width <= 0 || Width(s) <= width {
		return s
	}
	var b strings.Builder
	w := 0
	for _, r := range s {
		rw := runeWidth(r)
		if w+rw > width-1 {
			break
		}
		b.WriteRune(r)
		w += rw
	}
	return b.String() + "…"
}

// Width returns the number of terminal cells s takes: one per rune, two
// for wide East Asian characters and emoji, none for combining marks and
// zero-width characters.
func Width(s string) int {
	w := 0
	for _, r := range s {
		w += runeWidth(r)
	}
	return w
}

func runeWidth(r rune) int {
	switch {
	case r == 0x200B || r == 0x200C || r == 0x200D || r == 0xFEFF,
		r >= 0x0300 && r <= 0x036F, // combining diacritics
		r >= 0xFE00 && r <= 0xFE0F: // variation selectors
		return 0
	case r >= 0x1100 && r <= 0x115F, // Hangul Jamo
		r >= 0x2E80 && r <= 0x303E, // CJK radicals, punctuation
		r >= 0x3041 && r <= 0x33FF, // kana, CJK compatibility
		r >= 0x3400 && r <= 0x4DBF, // CJK extension A
		r >= 0x4E00 && r <= 0x9FFF, // CJK unified ideographs
		r >= 0xA000 && r <= 0xA4CF, // Yi
		r >= 0xAC00 && r <= 0xD7A3, // Hangul syllables
		r >= 0xF900 && r <= 0xFAFF, // CJK compatibility ideographs
		r >= 0xFE30 && r <= 0xFE4F, // CJK compatibility forms
		r >= 0xFF00 && r <= 0xFF60, // fullwidth forms
		r >= 0xFFE0 && r <= 0xFFE6,
		r >= 0x1F300 && r <= 0x1F64F, // pictographs, emoticons
		r >= 0x1F900 && r <= 0x1F9FF, // supplemental pictographs
		r >= 0x20000 && r <= 0x3FFFD: // CJK extensions B...
		return 2
	}
	return 1
}

// Cell renders a Starlark value as a table cell: None is empty, bools are
// True/False, floats in their shortest form without exponent for ordinary
// magnitudes (2.5, 3, 0.001), strings themselves with line breaks and tabs
// turned into spaces, lists of scalars joined by ", ", other lists and
// dicts compact JSON, and anything else its str().
func Cell(v starlark.Value) string {
	switch x := v.(type) {
	case starlark.NoneType:
		return ""
	case starlark.Bool:
		if x {
			return "True"
		}
		return "False"
	case starlark.String:
		return oneLine(string(x))
	case starlark.Float:
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return x.String()
		}
		return stdlib.CanonicalFloat(f)
	case starlark.Int:
		return x.String()
	case *starlark.List, starlark.Tuple, *starlark.Set:
		var parts []string
		scalar := true
		it := x.(starlark.Iterable).Iterate()
		var e starlark.Value
		for it.Next(&e) {
			switch e.(type) {
			case *starlark.List, starlark.Tuple, *starlark.Set, *starlark.Dict, *starlarkstruct.Struct:
				scalar = false
			}
			parts = append(parts, Cell(e))
		}
		it.Done()
		if scalar {
			return strings.Join(parts, ", ")
		}
	}
	switch v.(type) {
	case *starlark.List, starlark.Tuple, *starlark.Set, *starlark.Dict, *starlarkstruct.Struct:
		if data, err := stdlib.EncodeJSON(v, "", false); err == nil {
			return oneLine(string(data))
		}
	}
	return oneLine(v.String())
}

var lineBreaks = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ")

func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n\t") {
		return s
	}
	return lineBreaks.Replace(s)
}

func fprint(w io.Writer, s string) error {
	if w == nil {
		return nil
	}
	_, err := io.WriteString(w, s)
	return err
}

func writeErr(fn string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %v", fn, err)
}
