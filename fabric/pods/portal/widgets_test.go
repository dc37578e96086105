package portal

import (
	"math"
	"testing"
	"time"
)

// TestTimeOf: a ts column's value as epoch milliseconds: seconds,
// milliseconds, RFC 3339, numeric text; anything else is no time.
func TestTimeOf(t *testing.T) {
	for _, c := range []struct {
		in   any
		want float64
		ok   bool
	}{
		{1764217000.0, 1764217000e3, true},
		{1764217000123.0, 1764217000123, true},
		{"2025-11-27T04:16:40Z", 1764217000e3, true},
		{"2025-11-27T05:16:40.5+01:00", 1764217000500, true},
		{"1764217000", 1764217000e3, true},
		{"yesterday", 0, false},
		{true, 0, false},
		{nil, 0, false},
	} {
		got, ok := timeOf(c.in)
		if ok != c.ok || got != c.want {
			t.Errorf("timeOf(%v) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func rowsAt(now time.Time, n int, every time.Duration) []row {
	var out []row
	for i := range n {
		at := now.Add(-time.Duration(n-1-i) * every)
		out = append(out, row{T: float64(at.UnixMilli()), Fields: map[string]any{"v": float64(i), "a": i%5 == 0, "site": []string{"paris", "lyon"}[i%2]}})
	}
	return out
}

// TestView: the window, the filters, downsampling (percent, row limit,
// the portal's bound, only with downsample on), anomalies kept from all
// rows, and a table's newest rows first.
func TestView(t *testing.T) {
	now := time.Now()
	rows := rowsAt(now, 100, time.Minute)
	for _, c := range []struct {
		name                 string
		w                    Widget
		f                    Filters
		max                  int
		total, points, anoms int
	}{
		{"all", Widget{Type: "shaded_chart"}, Filters{}, 5000, 100, 100, 0},
		// A window holds its edges: the row of 60 minutes ago is in the hour.
		{"window", Widget{Type: "shaded_chart", DurationHours: 1}, Filters{}, 5000, 61, 61, 0},
		{"page's window wins", Widget{Type: "shaded_chart", DurationHours: 1}, Filters{Hours: 0.5}, 5000, 31, 31, 0},
		{"percent", Widget{Type: "shaded_chart", Downsample: true, DownsamplePercent: 10}, Filters{}, 5000, 100, 10, 0},
		{"percent off", Widget{Type: "shaded_chart", DownsamplePercent: 10}, Filters{}, 5000, 100, 100, 0},
		{"row limit", Widget{Type: "shaded_chart", Downsample: true, DownsampleRows: 7}, Filters{}, 5000, 100, 7, 0},
		{"both: the fewer", Widget{Type: "shaded_chart", Downsample: true, DownsamplePercent: 50, DownsampleRows: 7}, Filters{}, 5000, 100, 7, 0},
		{"the portal's bound", Widget{Type: "shaded_chart"}, Filters{}, 25, 100, 25, 0},
		{"anomalies kept", Widget{Type: "shaded_chart", AnomaliesColumn: "a", Downsample: true, DownsampleRows: 3}, Filters{}, 5000, 100, 3, 20},
		{"like", Widget{Type: "counter"}, Filters{Like: map[string]string{"site": "PAR"}}, 5000, 50, 50, 0},
		{"equals", Widget{Type: "counter"}, Filters{Equals: map[string]string{"site": "lyo"}}, 5000, 0, 0, 0},
		{"table", Widget{Type: "table"}, Filters{}, 5000, 100, 100, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := view(c.w, rows, c.f, now, c.max)
			if v.Total != c.total || v.Points != c.points || len(v.Rows) != c.points || len(v.Anomalies) != c.anoms {
				t.Errorf("total %d points %d rows %d anomalies %d; want %d %d %d", v.Total, v.Points, len(v.Rows), len(v.Anomalies), c.total, c.points, c.anoms)
			}
		})
	}
	v := view(Widget{Type: "table"}, rows, Filters{}, now, 5000)
	if v.Rows[0].Fields["v"] != 99.0 || len(v.Columns) != 3 {
		t.Errorf("a table's first row %v, columns %v: want the newest, every field", v.Rows[0].Fields, v.Columns)
	}
	d := downsample(rows, 4)
	if d[0].T != rows[0].T || d[3].T != rows[99].T {
		t.Errorf("downsampling keeps the first and the last")
	}
}

// TestBufferBound: a live widget's buffer never holds more than its
// bound, and says it dropped rows.
func TestBufferBound(t *testing.T) {
	b := &buffer{max: 100}
	for i := range 1000 {
		b.add(row{T: float64(i)})
	}
	rows, capped, changed := b.take(false)
	if len(rows) > 100 || !capped || !changed || rows[len(rows)-1].T != 999 {
		t.Fatalf("%d rows, capped %v, last %v", len(rows), capped, rows[len(rows)-1].T)
	}
	if _, _, changed := b.take(false); changed {
		t.Fatal("a second take without new rows reports a change")
	}
}

// FuzzView: no record, window or filter makes view panic or send more
// points than asked.
func FuzzView(f *testing.F) {
	f.Add(`{"ts": 1764217000, "v": 1, "a": true}`, 1, 50, 10, "x")
	f.Add(`{"ts": "2025-11-27T04:16:40Z", "v": "NaN"}`, 0, 0, 0, "")
	f.Fuzz(func(t *testing.T, rec string, hours, percent, limit int, like string) {
		var rows []row
		for i := range 30 {
			m := map[string]any{"ts": rec, "v": float64(i), "a": rec}
			if i%2 == 0 {
				m["ts"] = float64(i) * 1e9
			}
			rows = append(rows, project(m, "ts", time.Now(), nil))
		}
		w := Widget{Type: "shaded_chart", DurationHours: hours % 1000, Downsample: true, DownsamplePercent: percent, DownsampleRows: limit, AnomaliesColumn: "a"}
		v := view(w, rows, Filters{Like: map[string]string{"ts": like}}, time.Now(), 10)
		if v.Points > 10 || v.Points > v.Total || math.IsNaN(v.From) {
			t.Fatalf("points %d of %d", v.Points, v.Total)
		}
	})
}
