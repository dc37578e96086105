package worker_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/logarchive"
	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/fabricops/fabric/fabric/lib/botquery"
)

// TestReplayPacing: three minutes of an archive replayed by a worker
// into new streams, at speed 0 (as fast as it goes) and at speed 1.0
// (the records' own spacing, which spans a minute: the stream receives
// them over that minute, within 10%), each record present once, in
// order, labelled.
func TestReplayPacing(t *testing.T) {
	if testing.Short() {
		t.Skip("replays a minute at the original pace")
	}
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer, api.Scheduler, api.Worker}})
	c, err := client.Connect(f.Configs["a"])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	st, err := c.Data.Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := logarchive.AddRepo(ctx, st, "edge", "logs", "", 0); err != nil {
		t.Fatal(err)
	}
	a, err := logarchive.Open(ctx, st, "edge")
	if err != nil {
		t.Fatal(err)
	}
	// Minute 0 ends with a burst, minute 1 is spread, minute 2 begins
	// with a burst: 62 s from the first record to the last.
	start := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	offsets := map[int][]time.Duration{
		0: {59 * time.Second, 59*time.Second + 500*time.Millisecond},
		1: {0, 15 * time.Second, 30 * time.Second, 45 * time.Second, 59*time.Second + 500*time.Millisecond},
		2: {0, 500 * time.Millisecond, time.Second},
	}
	var want []int
	n := 0
	for m := range 3 {
		var recs [][]byte
		for _, off := range offsets[m] {
			ts := start.Add(time.Duration(m)*time.Minute + off)
			recs = append(recs, fmt.Appendf(nil, `{"timestamp":%q,"n":%d}`, api.Timestamp(ts), n))
			want = append(want, n)
			n++
		}
		if _, err := a.WriteMinute(ctx, "syslog", start.Add(time.Duration(m)*time.Minute), recs); err != nil {
			t.Fatal(err)
		}
	}
	span := 62 * time.Second

	replay := func(stream string, speed float64) []streams.Message {
		t.Helper()
		query := botquery.Format([]string{"repo", "name", "stream", "from", "minutes", "speed", "label"}, map[string]string{
			"repo": "edge", "name": "syslog", "stream": stream, "from": "2026-11-25T10:00:00", "minutes": "3",
			"speed": fmt.Sprint(speed), "label": "it's a replay"})
		resp, err := c.Run(ctx, api.RunRequest{Pipeline: "replay", Steps: []api.PipelineStep{{Tag: api.BotLogarchiveReplay, Query: query}}}, client.Placement{Site: "local"})
		if err != nil {
			t.Fatal(err)
		}
		j, err := c.Wait(ctx, resp.JobID, 2*span, nil)
		if err != nil || j.Status != api.JobCompleted {
			t.Fatalf("replay at speed %v: %v %s %s", speed, err, j.Status, j.Reason)
		}
		var got []streams.Message
		if _, err := streams.Read(ctx, c.JetStream(), stream, streams.ReadOptions{}, func(m streams.Message) error {
			got = append(got, m)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("speed %v: %d records in %s, want %d", speed, len(got), stream, len(want))
		}
		for i, m := range got {
			var r struct {
				N     int    `json:"n"`
				Label string `json:"replay_label"`
			}
			if err := json.Unmarshal(m.Data, &r); err != nil || r.N != want[i] || r.Label != "it's a replay" {
				t.Fatalf("speed %v: record %d is %s (%v)", speed, i, m.Data, err)
			}
		}
		return got
	}

	fast := replay("fast", 0)
	if d := fast[len(fast)-1].Time.Sub(fast[0].Time); d > 5*time.Second {
		t.Errorf("speed 0 took %s", d)
	}
	paced := replay("paced", 1.0)
	d := paced[len(paced)-1].Time.Sub(paced[0].Time)
	if math.Abs(float64(d-span)) > 0.1*float64(span) {
		t.Errorf("speed 1.0: the records reached the stream over %s, want %s ± 10%%", d, span)
	}
	// Each gap, too, is the original one (within 10% of the span).
	for i := 1; i < len(paced); i++ {
		gap := paced[i].Time.Sub(paced[0].Time)
		var orig time.Duration
		{
			var a, b struct{ Timestamp string }
			_ = json.Unmarshal(paced[0].Data, &a)
			_ = json.Unmarshal(paced[i].Data, &b)
			ta, _ := api.ParseTimestamp(a.Timestamp)
			tb, _ := api.ParseTimestamp(b.Timestamp)
			orig = tb.Sub(ta)
		}
		if math.Abs(float64(gap-orig)) > 0.1*float64(span) {
			t.Errorf("speed 1.0: record %d came %s after the first, want %s", i, gap, orig)
		}
	}
	t.Logf("speed 1.0: %s for an original %s", d, span)
}
