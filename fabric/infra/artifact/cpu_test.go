package artifact

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// BenchmarkAddCPU: what an add costs before the store (parse, check,
// encode) and a get after it (decode), for the dashboard of
// bench/artifacts.sh given as JSON.
func BenchmarkAddCPU(b *testing.B) {
	var v any
	if err := yaml.Unmarshal([]byte(strings.Replace(benchDoc, "NAME", "d1", 1)), &v); err != nil {
		b.Fatal(err)
	}
	text, _ := json.Marshal(v)
	r := &Repo{}
	ctx := context.Background()
	b.Run("parse", func(b *testing.B) {
		for range b.N {
			if _, err := Parse(text); err != nil {
				b.Fatal(err)
			}
		}
	})
	d, _ := Parse(text)
	b.Run("validate", func(b *testing.B) {
		for range b.N {
			if err := r.Validate(ctx, Dashboard, d); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode", func(b *testing.B) {
		for range b.N {
			if _, err := d.Decode(); err != nil {
				b.Fatal(err)
			}
		}
	})
	rec := Record{Doc: d, Source: "json"}
	b.Run("encode", func(b *testing.B) {
		for range b.N {
			rec.MarshalJSON()
		}
	})
	stored, _ := rec.MarshalJSON()
	b.Run("decodeRecord", func(b *testing.B) {
		for range b.N {
			if _, err := decodeRecord(stored); err != nil {
				b.Fatal(err)
			}
		}
	})
}

const benchDoc = `name: NAME
label: Network operations
description: Latency, errors and alarms of the core network, by site
dashboard_style: tabbed
dashboard_filters:
  time_filter: true
  columns_filter: [site, device]
  group_filters: []
debug: false
dashboard_sections:
  - title: Latency
    show_filter: true
    widgets:
      - widget_type: shaded_chart
        title: Round-trip time
        stream: rtt-metrics
        ts_column: timestamp
        baseline_column: baseline
        anomalies_column: anomaly
        predicted_column: predicted
        upperBound_column: upper
        lowerBound_column: lower
        duration_hours: 24
        synchronized-group: 1
        markers-def:
          - {message: change window, color: orange, timestamp: 1760000000}
        show-markers: true
        downsample: true
        downsample-to-percent: 20
        downsample-limit-rows: 5000
        widget_id: w1
  - title: Alarms
    show_filter: false
    widgets:
      - widget_type: table
        title: Open alarms
        stream: alarms
        columns: [id, severity, device, message]
        widget_id: w2
      - widget_type: counter
        title: Critical
        stream: alarms
        widget_id: w3
`
