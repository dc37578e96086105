package viewer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/mattn/go-runewidth"
)

// mode is what the keys do.
type mode int

const (
	browsing    mode = iota
	filtering        // typing a query after /
	jumping          // typing a row number after :
	summarizing      // a column's summary is shown
	helping          // the keys are shown
)

// Limits of the viewer.
const (
	// DefaultMaxSortRows is how many rows the viewer sorts at most (a
	// sort holds the column in memory).
	DefaultMaxSortRows = 20_000_000
	// defaultPage is the page height before the terminal tells its size.
	defaultPage = 50
)

// maxCached bounds the rows whose cells the viewer keeps (a variable
// for the tests).
var maxCached = 20_000

// Options are a viewer's title and limits.
type Options struct {
	// Title names the table in the top line (a dataset's name, a file).
	Title string
	// MaxSortRows is the most rows a sort reads (0: DefaultMaxSortRows).
	MaxSortRows int64
}

// job is work running in the background: a sort, a filter, a summary.
type job struct {
	id     int
	what   string
	cancel context.CancelFunc
	p      *progress
	total  int64
	order  *order // the order a sort or filter computes
}

// Messages from the background.
type (
	fetchedMsg struct {
		rows  []int64
		cells [][]string
		err   error
	}
	viewMsg struct {
		id  int
		v   view
		err error
	}
	summaryMsg struct {
		id  int
		s   summary
		err error
	}
	tickMsg struct{}
)

// model is the viewer's state.
type model struct {
	ctx    context.Context
	t      Table
	opts   Options
	width  int
	height int
	widths []int // of each column, grown as cells are seen

	v         view
	cur, top  int64 // the cursor's row and the first row shown (positions in the view)
	col, left int   // the cursor's column and the first column shown

	cache    map[int64][]string // the cells of rows read, by row index
	fetching bool
	ticking  bool
	fetchErr error

	mode    mode
	input   string
	job     *job
	jobs    int
	status  string
	summary *summary
}

func newModel(ctx context.Context, t Table, o Options) *model {
	if o.MaxSortRows <= 0 {
		o.MaxSortRows = DefaultMaxSortRows
	}
	m := &model{ctx: ctx, t: t, opts: o, cache: map[int64][]string{}}
	for _, c := range t.Columns() {
		m.widths = append(m.widths, max(runewidth.StringWidth(c.Column), 3))
	}
	return m
}

// rows returns the number of rows shown, and whether it is final.
func (m *model) rows() (int64, bool) {
	if m.v.rows != nil {
		return int64(len(m.v.rows)), true
	}
	if n := m.t.Rows(); n >= 0 {
		return n, true
	}
	if l, ok := m.t.(interface{ Loaded() int64 }); ok {
		return l.Loaded(), false
	}
	return 0, false
}

// rowAt returns the table's index of the row at position i of the view.
func (m *model) rowAt(i int64) int64 {
	if m.v.rows != nil {
		return int64(m.v.rows[i])
	}
	return i
}

// page is the number of table rows on the screen.
func (m *model) page() int64 {
	if m.height <= 0 {
		return defaultPage
	}
	return int64(max(m.height-3, 1))
}

func (m *model) Init() tea.Cmd { return tea.Batch(m.fetch(), m.tick()) }

// tick redraws the screen every 100ms while a job runs or the table is
// being read (one chain of ticks at a time).
func (m *model) tick() tea.Cmd {
	if m.ticking {
		return nil
	}
	m.ticking = true
	return tea.Tick(100*time.Millisecond, func(time.Time) tea.Msg { return tickMsg{} })
}

// fetch reads the rows around the screen that are not read yet, unless
// a read is under way.
func (m *model) fetch() tea.Cmd {
	if m.fetching {
		return nil
	}
	n, _ := m.rows()
	pg := m.page()
	from, to := max(m.top-pg, 0), min(m.top+2*pg, n)
	var want []int64
	for i := from; i < to; i++ {
		if r := m.rowAt(i); m.cache[r] == nil {
			want = append(want, r)
		}
	}
	if len(want) == 0 {
		return nil
	}
	slices.Sort(want)
	m.fetching = true
	ctx, t := m.ctx, m.t
	return func() tea.Msg {
		cells, err := t.Fetch(ctx, want)
		return fetchedMsg{rows: want, cells: cells, err: err}
	}
}

// keep stores fetched rows, forgetting those far from the screen when
// there are too many.
func (m *model) keep(msg fetchedMsg) {
	if len(m.cache)+len(msg.rows) > maxCached {
		near := map[int64]bool{}
		pg := m.page()
		n, _ := m.rows()
		for i := max(m.top-pg, 0); i < min(m.top+2*pg, n); i++ {
			near[m.rowAt(i)] = true
		}
		for r := range m.cache {
			if !near[r] {
				delete(m.cache, r)
			}
		}
	}
	for i, r := range msg.rows {
		if i >= len(msg.cells) || msg.cells[i] == nil {
			continue
		}
		m.cache[r] = msg.cells[i]
		for c, s := range msg.cells[i] {
			if c < len(m.widths) {
				m.widths[c] = max(m.widths[c], runewidth.StringWidth(s))
			}
		}
	}
}

// start runs fn in the background as the job what, cancelling the one
// under way.
func (m *model) start(what string, fn func(ctx context.Context, id int, p *progress) tea.Msg) tea.Cmd {
	m.stopJob()
	m.jobs++
	ctx, cancel := context.WithCancel(m.ctx)
	j := &job{id: m.jobs, what: what, cancel: cancel, p: &progress{}, total: m.t.Rows()}
	m.job = j
	m.status = ""
	return tea.Batch(func() tea.Msg { return fn(ctx, j.id, j.p) }, m.tick())
}

func (m *model) stopJob() {
	if m.job != nil {
		m.job.cancel()
		m.job = nil
	}
}

// reorder computes the view of o in the background.
func (m *model) reorder(o order, what string) tea.Cmd {
	t, maxSort := m.t, m.opts.MaxSortRows
	cmd := m.start(what, func(ctx context.Context, id int, p *progress) tea.Msg {
		v, err := compute(ctx, t, o, maxSort, p)
		return viewMsg{id: id, v: v, err: err}
	})
	m.job.order = &o
	return cmd
}

// target is the order shown, or the one being computed.
func (m *model) target() order {
	if m.job != nil && m.job.order != nil {
		return *m.job.order
	}
	return m.v.order
}

func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.clamp()
		return m, m.fetch()
	case fetchedMsg:
		m.fetching = false
		m.fetchErr = msg.err
		if msg.err == nil {
			m.keep(msg)
		}
		if msg.err != nil {
			return m, nil
		}
		return m, m.fetch()
	case tickMsg:
		m.ticking = false
		if _, final := m.rows(); m.job == nil && final {
			// The table was read whole since the last redraw: the
			// rows on the screen may not be fetched yet.
			return m, m.fetch()
		}
		return m, tea.Batch(m.tick(), m.fetch())
	case viewMsg:
		if m.job == nil || msg.id != m.job.id {
			return m, nil
		}
		m.job = nil
		if msg.err != nil {
			m.status = failure(msg.err)
			return m, nil
		}
		cur := m.rowAt(m.cur)
		m.v = msg.v
		m.cur, m.top = 0, 0
		if msg.v.query == "" && msg.v.sort == "" {
			m.cur = cur // back to the table's order: stay on the row
		}
		m.clamp()
		return m, m.fetch()
	case summaryMsg:
		if m.job == nil || msg.id != m.job.id {
			return m, nil
		}
		m.job = nil
		if msg.err != nil {
			m.status = failure(msg.err)
			return m, nil
		}
		m.summary, m.mode = &msg.s, summarizing
		return m, nil
	case tea.KeyMsg:
		return m.key(msg)
	}
	return m, nil
}

// failure is what the status line says of a job's error.
func failure(err error) string {
	if errors.Is(err, context.Canceled) {
		return "cancelled"
	}
	return "error: " + err.Error()
}

func (m *model) key(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	if k.Type == tea.KeyCtrlC {
		m.stopJob()
		return m, tea.Quit
	}
	if k.Type == tea.KeyRunes && len(k.Runes) > 1 && !k.Paste && (m.mode == browsing || m.mode == helping || m.mode == summarizing) {
		// Keys typed fast come as one message: each is a key.
		var cmds []tea.Cmd
		for _, r := range k.Runes {
			_, cmd := m.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
			cmds = append(cmds, cmd)
		}
		return m, tea.Batch(cmds...)
	}
	switch m.mode {
	case filtering, jumping:
		return m.typing(k)
	case summarizing, helping:
		m.mode, m.summary = browsing, nil
		if k.String() == "q" {
			m.stopJob()
			return m, tea.Quit
		}
		return m, nil
	}
	m.status = "" // a message lasts until the next key
	n, _ := m.rows()
	pg := m.page()
	switch k.String() {
	case "q":
		m.stopJob()
		return m, tea.Quit
	case "esc":
		if m.job != nil {
			m.stopJob()
			m.status = "cancelled"
		}
	case "down", "j":
		m.cur++
	case "up", "k":
		m.cur--
	case "pgdown", " ", "ctrl+f", "f":
		m.cur += pg
		m.top += pg
	case "pgup", "ctrl+b", "b":
		m.cur -= pg
		m.top -= pg
	case "home", "g":
		m.cur = 0
	case "end", "G":
		m.cur = n - 1
	case "right", "l", "tab":
		m.col++
	case "left", "h", "shift+tab":
		m.col--
	case "s":
		cols := m.t.Columns()
		if len(cols) == 0 {
			break
		}
		o := m.target()
		name := cols[m.col].Column
		switch {
		case o.sort != name:
			o.sort, o.desc = name, false
		case !o.desc:
			o.desc = true
		default:
			o.sort, o.desc = "", false
		}
		what := "sorting by " + name
		if o.sort == "" {
			what = "back to the table's order"
		}
		return m, m.reorder(o, what)
	case "/":
		m.mode, m.input = filtering, m.target().query
	case ":":
		m.mode, m.input = jumping, ""
	case "i", "enter":
		cols := m.t.Columns()
		if len(cols) == 0 {
			break
		}
		t, name, rows := m.t, cols[m.col].Column, m.v.rows
		return m, m.start("summarising "+name, func(ctx context.Context, id int, p *progress) tea.Msg {
			s, err := summarize(ctx, t, name, rows, p)
			return summaryMsg{id: id, s: s, err: err}
		})
	case "?":
		m.mode = helping
	}
	m.clamp()
	return m, m.fetch()
}

// typing edits the query or row number being typed.
func (m *model) typing(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	switch k.Type {
	case tea.KeyEsc:
		m.mode = browsing
	case tea.KeyBackspace:
		if r := []rune(m.input); len(r) > 0 {
			m.input = string(r[:len(r)-1])
		}
	case tea.KeyEnter:
		was, in := m.mode, strings.TrimSpace(m.input)
		m.mode, m.input, m.status = browsing, "", ""
		if was == filtering {
			return m, m.filter(in)
		}
		m.jump(in)
		return m, m.fetch()
	case tea.KeyCtrlU:
		m.input = ""
	case tea.KeySpace:
		m.input += " "
	case tea.KeyRunes:
		m.input += string(k.Runes)
	}
	return m, nil
}

func (m *model) filter(q string) tea.Cmd {
	o := m.target()
	o.query = q
	what := "filtering"
	if q == "" {
		what = "clearing the filter"
	}
	return m.reorder(o, what)
}

// jump moves the cursor to the row whose index is s.
func (m *model) jump(s string) {
	r, err := strconv.ParseInt(strings.ReplaceAll(s, ",", ""), 10, 64)
	n, _ := m.rows()
	switch {
	case err != nil:
		m.status = fmt.Sprintf("not a row number: %q", s)
	case m.v.rows == nil && (r < 0 || r >= n):
		m.status = fmt.Sprintf("no row %d: the rows are 0 to %d", r, n-1)
	case m.v.rows == nil:
		m.cur = r
	default:
		i := slices.Index(m.v.rows, int32(r))
		if i < 0 {
			m.status = fmt.Sprintf("row %d is not among the rows shown", r)
			return
		}
		m.cur = int64(i)
	}
	m.clamp()
}

// clamp keeps the cursor on a row and a column, and on the screen.
func (m *model) clamp() {
	n, _ := m.rows()
	pg := m.page()
	m.cur = max(min(m.cur, n-1), 0)
	if m.cur < m.top {
		m.top = m.cur
	}
	if m.cur >= m.top+pg {
		m.top = m.cur - pg + 1
	}
	m.top = max(min(m.top, n-pg), 0)
	m.col = max(min(m.col, len(m.widths)-1), 0)
	if m.col < m.left {
		m.left = m.col
	}
	for m.left < m.col && !m.fits(m.left, m.col) {
		m.left++
	}
}

// fits reports whether the columns from left to col fit the screen.
func (m *model) fits(left, col int) bool {
	w := m.indexWidth() + 1
	for c := left; c <= col; c++ {
		w += m.widths[c] + 2
	}
	return m.width <= 0 || w <= m.width
}

// indexWidth is the width of the row indices: those of the table's rows.
func (m *model) indexWidth() int {
	n := m.t.Rows()
	if l, ok := m.t.(interface{ Loaded() int64 }); ok && n < 0 {
		n = l.Loaded()
	}
	return max(len(strconv.FormatInt(max(n-1, 0), 10)), 1)
}

// Styles.
var (
	titleStyle  = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("15")).Background(lipgloss.Color("24"))
	headerStyle = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("11"))
	curHeader   = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("0")).Background(lipgloss.Color("11"))
	indexStyle  = lipgloss.NewStyle().Foreground(lipgloss.Color("8"))
	cursorRow   = lipgloss.NewStyle().Background(lipgloss.Color("237"))
	cursorCell  = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("0")).Background(lipgloss.Color("14"))
	statusStyle = lipgloss.NewStyle().Foreground(lipgloss.Color("0")).Background(lipgloss.Color("250"))
	errStyle    = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("9"))
)
