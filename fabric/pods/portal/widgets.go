package portal

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Widget is what the portal reads of a widget: the fields of SPEC 2.4's
// shaded chart, and those the other widget types use (columns, column).
type Widget struct {
	Type              string   `json:"widget_type"`
	Title             string   `json:"title"`
	Stream            string   `json:"stream"`
	TSColumn          string   `json:"ts_column"`
	ValueColumn       string   `json:"value_column"`
	BaselineColumn    string   `json:"baseline_column"`
	AnomaliesColumn   string   `json:"anomalies_column"`
	PredictedColumn   string   `json:"predicted_column"`
	UpperBoundColumn  string   `json:"upperBound_column"`
	LowerBoundColumn  string   `json:"lowerBound_column"`
	DurationHours     int      `json:"duration_hours"`
	SyncGroup         int      `json:"synchronized-group"`
	Markers           []Marker `json:"markers-def"`
	ShowMarkers       *bool    `json:"show-markers"`
	Downsample        bool     `json:"downsample"`
	DownsamplePercent int      `json:"downsample-to-percent"`
	DownsampleRows    int      `json:"downsample-limit-rows"`
	WidgetID          string   `json:"widget_id"`
	Columns           []string `json:"columns"`
	Column            string   `json:"column"`
}

// Marker is an entry of markers-def: a message at a time, in a color.
type Marker struct {
	Message   string  `json:"message"`
	Color     string  `json:"color"`
	Timestamp float64 `json:"timestamp"`
}

// Section is a dashboard section.
type Section struct {
	Title      string            `json:"title"`
	ShowFilter *bool             `json:"show_filter"`
	Widgets    []json.RawMessage `json:"widgets"`
}

// columns returns the record fields the widget reads (empty: all of a
// table's).
func (w Widget) columns() []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range append([]string{w.TSColumn, w.ValueColumn, w.BaselineColumn, w.AnomaliesColumn, w.PredictedColumn,
		w.UpperBoundColumn, w.LowerBoundColumn, w.Column}, w.Columns...) {
		if c != "" && !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// row is a record as a widget keeps it: its time (epoch milliseconds)
// and the fields it reads.
type row struct {
	T      float64        `json:"t"`
	Fields map[string]any `json:"f"`
}

// project makes a row of a record: the time is the ts column's value
// (epoch seconds or milliseconds, or an RFC 3339 text) or, without one,
// when the stream stored it; the fields are those of keep (all when keep
// is empty), up to maxFields.
func project(rec map[string]any, tsColumn string, stored time.Time, keep []string) row {
	r := row{T: float64(stored.UnixMilli()), Fields: map[string]any{}}
	if tsColumn != "" {
		if t, ok := timeOf(rec[tsColumn]); ok {
			r.T = t
		}
	}
	if len(keep) == 0 {
		for k, v := range rec {
			if len(r.Fields) >= maxFields {
				break
			}
			r.Fields[k] = v
		}
		return r
	}
	for _, k := range keep {
		if v, ok := rec[k]; ok {
			r.Fields[k] = v
		}
	}
	return r
}

// maxFields bounds the fields a row of a widget that reads every field
// (a table without columns) keeps.
const maxFields = 32

// timeOf reads a time as epoch milliseconds: a number of seconds (or of
// milliseconds, when it is past the year 33658 in seconds), or a text in
// RFC 3339 or a number.
func timeOf(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		if math.Abs(x) >= 1e12 {
			return x, true
		}
		return x * 1000, true
	case string:
		if t, err := time.Parse(time.RFC3339Nano, x); err == nil {
			return float64(t.UnixMilli()), true
		}
		if f, err := strconv.ParseFloat(x, 64); err == nil {
			return timeOf(f)
		}
	}
	return 0, false
}

// number reads a field as a number.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case string:
		f, err := strconv.ParseFloat(x, 64)
		return f, err == nil
	}
	return 0, false
}

// Filters are the dashboard's filters as the page sets them: a time
// window (hours; 0: the widget's), text the columns of columns_filter
// must contain, values the columns of group_filters must equal.
type Filters struct {
	Hours  float64
	Like   map[string]string
	Equals map[string]string
}

// keeps reports whether a row passes the filters.
func (f Filters) keeps(r row) bool {
	for c, want := range f.Like {
		if want != "" && !strings.Contains(strings.ToLower(text(r.Fields[c])), strings.ToLower(want)) {
			return false
		}
	}
	for c, want := range f.Equals {
		if want != "" && text(r.Fields[c]) != want {
			return false
		}
	}
	return true
}

// text is a field as the filters compare it.
func text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// View is what a widget draws, as the live connection sends it.
type View struct {
	// Total is how many records of the window passed the filters;
	// Points how many rows were kept of them (downsampling).
	Total  int   `json:"total"`
	Points int   `json:"points"`
	Rows   []row `json:"rows"`
	// Anomalies are the rows whose anomaly column is set, from all of
	// the window's rows (downsampling keeps every anomaly).
	Anomalies []row `json:"anomalies"`
	// From and To are the window's bounds (epoch ms; From 0: none).
	From float64 `json:"from"`
	To   float64 `json:"to"`
	// Columns are the fields a table shows.
	Columns []string `json:"columns"`
	// Source is "stream" or "dataset"; Capped says the rows read hit
	// the portal's bound.
	Source string `json:"source"`
	Capped bool   `json:"capped"`
}

// view computes what widget w draws of rows (in stream order) at now.
func view(w Widget, rows []row, f Filters, now time.Time, maxPoints int) View {
	v := View{To: float64(now.UnixMilli()), Rows: []row{}, Anomalies: []row{}, Columns: w.Columns}
	hours := float64(w.DurationHours)
	if f.Hours > 0 {
		hours = f.Hours
	}
	if hours > 0 {
		v.From = v.To - hours*3600e3
	}
	kept := make([]row, 0, len(rows))
	for _, r := range rows {
		if v.From > 0 && r.T < v.From || !f.keeps(r) {
			continue
		}
		kept = append(kept, r)
	}
	sort.SliceStable(kept, func(i, j int) bool { return kept[i].T < kept[j].T })
	v.Total = len(kept)
	if w.AnomaliesColumn != "" {
		for _, r := range kept {
			if anomalous(r.Fields[w.AnomaliesColumn]) && len(v.Anomalies) < maxPoints {
				v.Anomalies = append(v.Anomalies, r)
			}
		}
	}
	if w.Type == "table" {
		// A table shows the newest rows, newest first.
		n := min(len(kept), maxTableRows)
		for i := len(kept) - 1; i >= len(kept)-n; i-- {
			v.Rows = append(v.Rows, kept[i])
		}
		v.Points = len(v.Rows)
		if len(v.Columns) == 0 && len(v.Rows) > 0 {
			for k := range v.Rows[0].Fields {
				v.Columns = append(v.Columns, k)
			}
			sort.Strings(v.Columns)
		}
		return v
	}
	target := len(kept)
	if w.Downsample {
		if w.DownsamplePercent > 0 && w.DownsamplePercent < 100 {
			target = int(math.Ceil(float64(len(kept)) * float64(w.DownsamplePercent) / 100))
		}
		if w.DownsampleRows > 0 && target > w.DownsampleRows {
			target = w.DownsampleRows
		}
	}
	target = min(target, maxPoints)
	v.Rows = downsample(kept, target)
	v.Points = len(v.Rows)
	return v
}

// maxTableRows bounds the rows a table shows.
const maxTableRows = 200

// downsample keeps n of rows, evenly spread, the first and last kept.
func downsample(rows []row, n int) []row {
	if n >= len(rows) {
		return rows
	}
	if n <= 0 {
		return []row{}
	}
	if n == 1 {
		return rows[len(rows)-1:]
	}
	out := make([]row, 0, n)
	step := float64(len(rows)-1) / float64(n-1)
	for i := range n {
		out = append(out, rows[int(math.Round(float64(i)*step))])
	}
	return out
}

// anomalous reports whether an anomaly column's value marks an anomaly:
// true, a number other than zero, or a text other than "", "false", "0".
func anomalous(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case float64:
		return x != 0 && !math.IsNaN(x)
	case string:
		return x != "" && x != "false" && x != "0"
	}
	return false
}
