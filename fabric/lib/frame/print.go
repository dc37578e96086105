package frame

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
)

// Display limits of String.
const (
	headRows  = 10
	tailRows  = 5
	edgeCols  = 10 // columns shown at each end of a wide frame
	cellWidth = 40
)

// elide returns the indices 0..n-1, or when there are more than head+tail
// the first head, -1 (for "...") and the last tail.
func elide(n, head, tail int) []int {
	var out []int
	if n <= head+tail {
		for i := 0; i < n; i++ {
			out = append(out, i)
		}
		return out
	}
	for i := 0; i < head; i++ {
		out = append(out, i)
	}
	out = append(out, -1)
	for i := n - tail; i < n; i++ {
		out = append(out, i)
	}
	return out
}

// String renders the frame as pandas does: a table with the row index,
// right-aligned, showing the first 10 and last 5 rows of a long frame
// with a "..." row between, then "[N rows x M columns]".
func (f *Frame) String() string {
	n, m := f.NumRows(), f.NumCols()
	rows := elide(n, headRows, tailRows) // -1 is the "..." row
	cols := elide(m, edgeCols, edgeCols) // -1 is the "..." column
	// grid[0] is the header; column 0 of each line the index.
	grid := make([][]string, len(rows)+1)
	grid[0] = append(grid[0], "")
	for _, c := range cols {
		if c < 0 {
			grid[0] = append(grid[0], "...")
		} else {
			grid[0] = append(grid[0], clip(f.schema.Field(c).Name))
		}
	}
	for k, i := range rows {
		line := make([]string, 0, len(cols)+1)
		var vals []any
		if i < 0 {
			line = append(line, "...")
		} else {
			line = append(line, strconv.Itoa(i))
			vals = f.Row(i)
		}
		for _, c := range cols {
			switch {
			case i < 0 || c < 0:
				line = append(line, "...")
			default:
				line = append(line, clip(displayText(vals[c], f.schema.Field(c).Type)))
			}
		}
		grid[k+1] = line
	}
	widths := make([]int, len(grid[0]))
	for _, line := range grid {
		for j, s := range line {
			widths[j] = max(widths[j], utf8.RuneCountInString(s))
		}
	}
	var b strings.Builder
	if m == 0 {
		b.WriteString("Empty frame\n")
	} else {
		for _, line := range grid {
			var l strings.Builder
			for j, s := range line {
				if j > 0 {
					l.WriteString("  ")
				}
				pad := widths[j] - utf8.RuneCountInString(s)
				if j == 0 {
					l.WriteString(s + strings.Repeat(" ", pad))
				} else {
					l.WriteString(strings.Repeat(" ", pad) + s)
				}
			}
			b.WriteString(strings.TrimRight(l.String(), " ") + "\n")
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "[%d rows x %d columns]", n, m)
	return b.String()
}

// clip shortens a long cell and keeps it on one line.
func clip(s string) string {
	if strings.ContainsAny(s, "\n\r\t") {
		s = strings.NewReplacer("\n", `\n`, "\r", `\r`, "\t", `\t`).Replace(s)
	}
	if utf8.RuneCountInString(s) > cellWidth {
		r := []rune(s)
		s = string(r[:cellWidth-3]) + "..."
	}
	return s
}

// Cell renders value i of arr as a printed frame shows it (NaN, NaT or
// None for a missing value, True/False, floats with a decimal point),
// on one line and at most 40 characters long.
func Cell(arr arrow.Array, i int) string {
	return clip(displayText(ValueAt(arr, i), arr.DataType()))
}

// displayText renders a value for display, pandas-like: NaN for a missing
// number, NaT for a missing time, None otherwise.
func displayText(v any, t arrow.DataType) string {
	switch x := v.(type) {
	case nil:
		switch DTypeOf(t) {
		case "datetime64[ns]":
			return "NaT"
		case "object", "bool", "category":
			return "None"
		}
		return "NaN"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case int64:
		return strconv.FormatInt(x, 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case float64:
		switch {
		case math.IsNaN(x):
			return "NaN"
		case math.IsInf(x, 1):
			return "inf"
		case math.IsInf(x, -1):
			return "-inf"
		}
		s := strconv.FormatFloat(x, 'f', -1, 64)
		if len(s) > 12 {
			s = strconv.FormatFloat(x, 'g', 6, 64)
			if !strings.ContainsAny(s, "e") {
				s = strconv.FormatFloat(x, 'f', 6, 64)
			}
		}
		if !strings.ContainsAny(s, ".e") {
			s += ".0"
		}
		return s
	case time.Time:
		if t.ID() == arrow.DATE32 || t.ID() == arrow.DATE64 {
			return x.Format(time.DateOnly)
		}
		return x.Format("2006-01-02 15:04:05.999999999")
	case string:
		return x
	}
	return fmt.Sprint(v)
}
