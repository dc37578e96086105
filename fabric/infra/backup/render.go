package backup

import (
	"fmt"
	"strings"
	"unicode/utf8"

	udiff "github.com/aymanbagabas/go-udiff"
)

// Unified is the entry's documents as a unified diff (first, then
// second), empty when they are identical.
func (e Entry) Unified() string {
	name := e.Dir + "/" + e.Name
	return udiff.Unified("first/"+name, "second/"+name, e.First, e.Second)
}

// Side is the entry's documents side by side, each column width runes
// wide: lines only in the first marked "<", only in the second ">", and
// changed "|", with three lines of context around each change.
func (e Entry) Side(width int) string {
	edits := udiff.Lines(e.First, e.Second)
	d, err := udiff.ToUnifiedDiff("first", "second", e.First, edits, 3)
	if err != nil {
		return ""
	}
	var b strings.Builder
	row := func(l, mark, r string) {
		b.WriteString(strings.TrimRight(fmt.Sprintf("%s %s %s", pad(l, width), mark, r), " "))
		b.WriteByte('\n')
	}
	for i, h := range d.Hunks {
		if i > 0 {
			row("...", " ", "...")
		}
		var dels, ins []string
		flush := func() {
			for j := 0; j < max(len(dels), len(ins)); j++ {
				switch {
				case j < len(dels) && j < len(ins):
					row(dels[j], "|", ins[j])
				case j < len(dels):
					row(dels[j], "<", "")
				default:
					row("", ">", ins[j])
				}
			}
			dels, ins = nil, nil
		}
		for _, l := range h.Lines {
			c := strings.TrimSuffix(l.Content, "\n")
			switch l.Kind {
			case udiff.Delete:
				dels = append(dels, c)
			case udiff.Insert:
				ins = append(ins, c)
			default:
				flush()
				row(c, " ", c)
			}
		}
		flush()
	}
	return b.String()
}

// pad cuts or pads s to width runes.
func pad(s string, width int) string {
	n := utf8.RuneCountInString(s)
	if n > width {
		r := []rune(s)
		return string(r[:width-1]) + "…"
	}
	return s + strings.Repeat(" ", width-n)
}
