package viewer

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/mattn/go-runewidth"
)

// keyHelp is what the ? screen shows.
var keyHelp = [][2]string{
	{"↑ ↓  j k", "previous, next row"},
	{"PgUp PgDn  b f space", "previous, next page"},
	{"Home End  g G", "first, last row"},
	{"← →  h l  Tab", "previous, next column"},
	{"s", "sort by the column: ascending, descending, back to the table's order"},
	{"/", "filter with a CFXQL query (cpu > 90 and site is 'nyc'); an empty one shows every row"},
	{":", "jump to a row by its index"},
	{"i  Enter", "summary of the column: type, nulls, min and max or top values"},
	{"Esc", "cancel a sort, filter or summary under way"},
	{"q  Ctrl-C", "leave"},
}

func (m *model) View() string {
	w := m.width
	if w <= 0 {
		w = 120
	}
	var lines []string
	lines = append(lines, titleStyle.Render(fit(m.title(), w)))
	pg := int(m.page())
	switch m.mode {
	case summarizing:
		lines = append(lines, m.summaryLines(w)...)
	case helping:
		lines = append(lines, headerStyle.Render(fit(" Keys", w)))
		for _, k := range keyHelp {
			lines = append(lines, fit(fmt.Sprintf(" %-22s %s", k[0], k[1]), w))
		}
	default:
		lines = append(lines, m.grid(w, pg)...)
	}
	for len(lines) < pg+2 {
		lines = append(lines, "")
	}
	lines = append(lines[:pg+2], m.statusLine(w))
	return strings.Join(lines, "\n")
}

// title is the top line: the table, its size and the view's order.
func (m *model) title() string {
	n, final := m.rows()
	count := comma(n)
	if !final {
		count += "+"
	}
	s := fmt.Sprintf(" %s rows × %d columns", count, len(m.widths))
	if m.opts.Title != "" {
		s = " " + m.opts.Title + " ·" + s
	}
	if m.v.query != "" {
		s += fmt.Sprintf(" · filter: %s", m.v.query)
	}
	if m.v.sort != "" {
		arrow := "↑"
		if m.v.desc {
			arrow = "↓"
		}
		s += fmt.Sprintf(" · sorted by %s %s", m.v.sort, arrow)
	}
	return s
}

// visible returns the columns shown from m.left.
func (m *model) visible(w int) []int {
	used := m.indexWidth() + 1
	var cols []int
	for c := m.left; c < len(m.widths); c++ {
		if used+m.widths[c]+2 > w && len(cols) > 0 {
			break
		}
		cols = append(cols, c)
		used += m.widths[c] + 2
	}
	return cols
}

// grid is the header and the rows on the screen.
func (m *model) grid(w, pg int) []string {
	cols := m.t.Columns()
	vis := m.visible(w)
	iw := m.indexWidth()
	var h strings.Builder
	h.WriteString(strings.Repeat(" ", iw+1))
	for _, c := range vis {
		h.WriteString("  ")
		cell := pad(cols[c].Column, m.widths[c], numeric(cols[c].DType))
		if c == m.col {
			h.WriteString(curHeader.Render(cell))
		} else {
			h.WriteString(headerStyle.Render(cell))
		}
	}
	lines := []string{h.String()}
	n, _ := m.rows()
	for i := m.top; i < min(m.top+int64(pg), n); i++ {
		r := m.rowAt(i)
		cells := m.cache[r]
		onCursor := i == m.cur
		style := func(s lipgloss.Style) lipgloss.Style {
			if onCursor {
				return s.Background(cursorRow.GetBackground())
			}
			return s
		}
		var b strings.Builder
		b.WriteString(style(indexStyle).Render(pad(strconv.FormatInt(r, 10), iw, true) + " "))
		for _, c := range vis {
			text := "…"
			if cells != nil {
				text = cells[c]
			}
			cell := pad(text, m.widths[c], numeric(cols[c].DType))
			if onCursor && c == m.col {
				b.WriteString(style(lipgloss.NewStyle()).Render("  ") + cursorCell.Render(cell))
			} else {
				b.WriteString(style(lipgloss.NewStyle()).Render("  " + cell))
			}
		}
		lines = append(lines, b.String())
	}
	if n == 0 {
		lines = append(lines, " (no rows)")
	}
	return lines
}

// statusLine is the bottom line: what is typed, a job's progress, a
// message, or where the cursor is.
func (m *model) statusLine(w int) string {
	switch {
	case m.mode == filtering:
		return fit("/"+m.input+"█   CFXQL query, Enter applies, Esc leaves", w)
	case m.mode == jumping:
		return fit(":"+m.input+"█   row index, Enter jumps, Esc leaves", w)
	case m.job != nil:
		done := comma(m.job.p.rows.Load())
		if m.job.total >= 0 {
			done += " of " + comma(m.job.total)
		}
		return statusStyle.Render(fit(fmt.Sprintf(" %s… %s rows read (Esc cancels)", m.job.what, done), w))
	case m.status != "":
		return errStyle.Render(fit(" "+m.status, w))
	case m.fetchErr != nil:
		return errStyle.Render(fit(" error: "+m.fetchErr.Error(), w))
	}
	n, _ := m.rows()
	s := fmt.Sprintf(" row %s of %s", comma(min(m.cur+1, n)), comma(n))
	if cols := m.t.Columns(); len(cols) > 0 {
		s += fmt.Sprintf(" · column %d of %d: %s (%s)", m.col+1, len(cols), cols[m.col].Column, cols[m.col].DType)
	}
	if note := m.t.Note(); note != "" {
		s += " · " + note
	}
	s += " · ? keys · q quit"
	return statusStyle.Render(fit(s, w))
}

// summaryLines describe the column summarised.
func (m *model) summaryLines(w int) []string {
	s := m.summary
	of := "every row"
	if m.v.query != "" {
		of = "the rows the filter keeps"
	}
	out := []string{headerStyle.Render(fit(" Column "+s.column, w))}
	add := func(k, v string) { out = append(out, fit(fmt.Sprintf("   %-8s %s", k, v), w)) }
	add("type", s.dtype)
	add("rows", comma(s.rows)+" ("+of+")")
	add("nulls", comma(s.nulls))
	if s.min != "" {
		add("min", s.min)
		add("max", s.max)
	}
	if len(s.top) > 0 {
		title := "top values"
		if s.capped {
			title += fmt.Sprintf(" (counted among the first %s distinct values)", comma(int64(maxDistinct)))
		}
		out = append(out, "", fit("   "+title+":", w))
		for _, c := range s.top {
			out = append(out, fit(fmt.Sprintf("     %-30s %s", c.value, comma(c.n)), w))
		}
	}
	return append(out, "", fit("   any key: back to the table", w))
}

// numeric reports whether a column of this dtype is right-aligned.
func numeric(dtype string) bool {
	return strings.HasPrefix(dtype, "int") || strings.HasPrefix(dtype, "uint") || strings.HasPrefix(dtype, "float")
}

// pad fits s in w cells, on the right when right is set.
func pad(s string, w int, right bool) string {
	s = runewidth.Truncate(s, w, "…")
	gap := strings.Repeat(" ", max(w-runewidth.StringWidth(s), 0))
	if right {
		return gap + s
	}
	return s + gap
}

// fit cuts or pads s to w cells.
func fit(s string, w int) string { return pad(s, w, false) }

// comma writes n with thousands separators.
func comma(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
