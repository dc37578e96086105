package fabrictest

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// Scrub replaces the values of a command's or a script's output that
// change from run to run and from machine to machine by placeholders, so
// that the output can be compared with a golden file. See Scrubber.
func Scrub(s string) string { return NewScrubber().Scrub(s) }

// A Scrubber replaces volatile values by placeholders:
//
//   - times within a few years of now (the run's own: saved_time, created,
//     started_at, a license expiring next year) by <TIME> or <DATE>, and
//     the day of versions YYYY_MM_DD_N by YYYY_MM_DD (N is kept); times far
//     from now (test data, say 1999-01-02T03:04:05Z) are kept;
//   - durations ("3s", "1m2.5s", "12 ms", with the padding of a
//     right-aligned "    12.5 ms") by <DUR>, ages ("0:00:12",
//     "1 day, 2:03:04") by <AGE>;
//   - job ids (32 hex digits) by <JOBID>, other ids of 8 hex digits (pods,
//     sites, data files) by <ID>;
//   - paths under the temp directory (t.TempDir()) by <TMP>, the port of
//     127.0.0.1:PORT by <PORT>, "N bytes" by "<SIZE> bytes", "pid N" by
//     "pid <PID>", and the host name when it is a whole JSON string or
//     table cell by <HOST>;
//   - the values of volatile JSON (or Starlark dict) keys: a pod's
//     resources (cpu_*, mem_*_gb), pid, proc_id, _local_time,
//     config_checksum, duration_ms, latency_ms;
//   - the cells of volatile table columns (Age, PID, CPUs, Memory(GB),
//     Write ms, Read ms, and those added with Column), and of a row
//     whose first cell is "pid".
//
// Tables in the shell's style (a header, a rule of dashes, rows) are
// realigned after their cells are scrubbed, so that a placeholder
// replacing values of different widths gives the same table.
type Scrubber struct {
	literals []literal
	columns  map[string]string
	now      time.Time
}

type literal struct{ old, new string }

// NewScrubber returns a Scrubber with the default rules.
func NewScrubber() *Scrubber {
	return &Scrubber{columns: map[string]string{
		"Age":        "<AGE>",
		"PID":        "<PID>",
		"CPUs":       "<N>",
		"Memory(GB)": "<GB>",
		"Write ms":   "<MS>",
		"Read ms":    "<MS>",
	}}
}

// Literal makes the scrubber replace old by placeholder wherever old is
// not part of a longer word (letters and digits); longer literals are
// replaced first, before the other rules. Use it for values a test knows
// (a job id it started, to name it).
func (s *Scrubber) Literal(old, placeholder string) *Scrubber {
	if old != "" {
		s.literals = append(s.literals, literal{old, placeholder})
		sort.SliceStable(s.literals, func(i, j int) bool { return len(s.literals[i].old) > len(s.literals[j].old) })
	}
	return s
}

// Column makes the scrubber replace every non-empty cell of the table
// column header by placeholder.
func (s *Scrubber) Column(header, placeholder string) *Scrubber {
	s.columns[header] = placeholder
	return s
}

// Scrub returns text with its volatile values replaced.
func (s *Scrubber) Scrub(text string) string {
	s.now = time.Now()
	lines := strings.Split(text, "\n")
	var out []string
	for i := 0; i < len(lines); {
		if starts := ruleColumns(lines, i); starts != nil {
			n := tableEnd(lines, i+2)
			out = append(out, s.table(lines[i], lines[i+2:n], starts)...)
			i = n
			continue
		}
		out = append(out, s.line(lines[i]))
		i++
	}
	return strings.Join(out, "\n")
}

// ruleColumns returns the column starts of the table whose header is
// lines[i] (the next line is its rule of dashes), or nil.
func ruleColumns(lines []string, i int) []int {
	if i+1 >= len(lines) || strings.TrimSpace(lines[i]) == "" {
		return nil
	}
	rule := lines[i+1]
	if !ruleLine.MatchString(rule) {
		return nil
	}
	header := []rune(lines[i])
	var starts []int
	for j, r := range rule {
		if r == '-' && (j == 0 || rule[j-1] == ' ') {
			// Every column of the header starts where its dashes do.
			if j >= len(header) || header[j] == ' ' || (j > 0 && header[j-1] != ' ') {
				return nil
			}
			starts = append(starts, j)
		}
	}
	if len(starts) < 2 {
		return nil // a line of dashes alone (a YAML document start) is no table
	}
	return starts
}

var ruleLine = regexp.MustCompile(`^-+(  +-+)*$`)

// tableEnd returns the index of the first line from i that is not a row.
func tableEnd(lines []string, i int) int {
	for i < len(lines) && strings.TrimSpace(lines[i]) != "" {
		i++
	}
	return i
}

// table scrubs the cells of a table and writes it again, realigned.
func (s *Scrubber) table(header string, rows []string, starts []int) []string {
	split := func(line string) []string {
		r := []rune(line)
		cells := make([]string, len(starts))
		for j, start := range starts {
			end := len(r)
			if j+1 < len(starts) {
				end = min(starts[j+1], len(r))
			}
			if start < end {
				cells[j] = strings.TrimRight(string(r[start:end]), " ")
			}
		}
		return cells
	}
	headers := split(header)
	grid := [][]string{headers}
	for _, row := range rows {
		cells := split(row)
		// A row named pid (a Field/Value table) holds a pid.
		pidRow := strings.EqualFold(cells[0], "pid")
		for j, c := range cells {
			switch p, ok := s.columns[headers[j]]; {
			case c == "":
			case pidRow && j > 0:
				cells[j] = "<PID>"
			case ok:
				cells[j] = p
			case c == hostname:
				cells[j] = "<HOST>"
			default:
				cells[j] = s.line(c)
			}
		}
		grid = append(grid, cells)
	}
	widths := make([]int, len(starts))
	for _, cells := range grid {
		for j, c := range cells {
			widths[j] = max(widths[j], utf8.RuneCountInString(c))
		}
	}
	format := func(cells []string) string {
		var b strings.Builder
		for j, c := range cells {
			if j > 0 {
				b.WriteString("  ")
			}
			b.WriteString(c)
			if j < len(cells)-1 {
				b.WriteString(strings.Repeat(" ", widths[j]-utf8.RuneCountInString(c)))
			}
		}
		return strings.TrimRight(b.String(), " ")
	}
	out := []string{format(grid[0])}
	dashes := make([]string, len(widths))
	for j, w := range widths {
		dashes[j] = strings.Repeat("-", w)
	}
	out = append(out, strings.Join(dashes, "  "))
	for _, cells := range grid[1:] {
		out = append(out, format(cells))
	}
	return out
}

var (
	hostname, _ = os.Hostname()
	tempDir     = strings.TrimSuffix(os.TempDir(), "/")
	// A t.TempDir(): TMPDIR/TestName123456789/001.
	tempPath = regexp.MustCompile(regexp.QuoteMeta(tempDir) + `/[^/\s"',:;]+/\d{3,}`)
	// The values of volatile keys in JSON or Starlark dicts.
	volatileKey = regexp.MustCompile(`"(cpu_count|cpu_load1|cpu_load5|cpu_load15|mem_(?:total|available|used|free|active|inactive)_gb|mem_percent|pid|proc_id|_local_time|config_checksum|duration_ms|latency_ms|CPUs|Memory\(GB\))": (-?[0-9][0-9.e+-]*|"[^"]*")`)
	volatile    = regexp.MustCompile(strings.Join([]string{
		// 1: a time, 2-4 its date.
		`(\b(\d{4})-(\d\d)-(\d\d)[T ]\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?(?: [+-]\d{4} [A-Z]{2,5})?)`,
		// 5: a date, 6-8 its parts.
		`(\b(\d{4})-(\d\d)-(\d\d)\b)`,
		// 9: a version YYYY_MM_DD_N, 10-13 its parts.
		`(\b(\d{4})_(\d\d)_(\d\d)_(\d+)\b)`,
		// 14: a job id, 15: another id.
		`(\b[0-9a-f]{32}\b)`,
		`(\b[0-9a-f]{8}\b)`,
		// 16: an age, 17: a duration.
		`(\b(?:\d+ days?, )?\d+:\d\d:\d\d\b)`,
		`(\b(?:\d+h)?(?:\d+m)?\d+(?:\.\d+)?(?:ns|µs|us|ms|s)\b| *\b\d+(?:\.\d+)? ms\b)`,
		// 18: a port, 19: bytes, 20: a pid.
		`((?:127\.0\.0\.1|localhost):\d+)`,
		`(\b\d+ bytes\b)`,
		`(\bpid \d+)`,
	}, "|"))
)

// line scrubs one line (or table cell).
func (s *Scrubber) line(l string) string {
	for _, lit := range s.literals {
		l = replaceWord(l, lit.old, lit.new)
	}
	l = tempPath.ReplaceAllString(l, "<TMP>")
	if hostname != "" {
		l = strings.ReplaceAll(l, `"`+hostname+`"`, `"<HOST>"`)
	}
	l = volatileKey.ReplaceAllStringFunc(l, func(m string) string {
		i := strings.Index(m, `": `) + 1
		key, p := m[:i], "<N>"
		switch key {
		case `"pid"`, `"proc_id"`:
			p = "<PID>"
		case `"_local_time"`:
			p = "<TIME>"
		case `"duration_ms"`, `"latency_ms"`:
			p = "<MS>"
		case `"config_checksum"`:
			p = "<HEX>"
		}
		if strings.HasPrefix(m[i+2:], `"`) {
			p = `"` + p + `"`
		}
		return key + ": " + p
	})
	var b strings.Builder
	last := 0
	for _, m := range volatile.FindAllStringSubmatchIndex(l, -1) {
		b.WriteString(l[last:m[0]])
		b.WriteString(s.placeholder(l, m))
		last = m[1]
	}
	b.WriteString(l[last:])
	return b.String()
}

// placeholder returns what replaces the match m of volatile in l.
func (s *Scrubber) placeholder(l string, m []int) string {
	group := func(i int) string {
		if m[2*i] < 0 {
			return ""
		}
		return l[m[2*i]:m[2*i+1]]
	}
	whole := l[m[0]:m[1]]
	switch {
	case group(1) != "":
		if s.recent(group(2), group(3), group(4)) {
			return "<TIME>"
		}
	case group(5) != "":
		if s.recent(group(6), group(7), group(8)) {
			return "<DATE>"
		}
	case group(9) != "":
		if s.recent(group(10), group(11), group(12)) {
			return "YYYY_MM_DD_" + group(13)
		}
	case group(14) != "":
		return "<JOBID>"
	case group(15) != "":
		return "<ID>"
	case group(16) != "":
		return "<AGE>"
	case group(17) != "":
		// "N ms" right-aligned in a column: the padding goes too (two
		// spaces stay a column gap, one a word gap).
		switch spaces := len(whole) - len(strings.TrimLeft(whole, " ")); {
		case spaces >= 2:
			return "  <DUR>"
		case spaces == 1:
			return " <DUR>"
		}
		return "<DUR>"
	case group(18) != "":
		return whole[:strings.LastIndex(whole, ":")] + ":<PORT>"
	case group(19) != "":
		return "<SIZE> bytes"
	case group(20) != "":
		return "pid <PID>"
	}
	return whole
}

// recent reports whether the date is within three years of now: a time
// of the run (a license expires a year after it), not of test data.
func (s *Scrubber) recent(year, month, day string) bool {
	t, err := time.Parse("2006-01-02", year+"-"+month+"-"+day)
	if err != nil {
		return false
	}
	d := t.Sub(s.now)
	return d > -3*365*24*time.Hour && d < 3*365*24*time.Hour
}

// replaceWord replaces old by new in s where old is not part of a longer
// word of letters and digits.
func replaceWord(s, old, new string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, old)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(old)
		if (i > 0 && isWordByte(s[i-1]) && isWordByte(old[0])) || (end < len(s) && isWordByte(s[end]) && isWordByte(old[len(old)-1])) {
			b.WriteString(s[:i+1])
			s = s[i+1:]
			continue
		}
		b.WriteString(s[:i])
		b.WriteString(new)
		s = s[end:]
	}
}

func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
