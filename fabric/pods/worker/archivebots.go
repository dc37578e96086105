package worker

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/logarchive"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/fabricops/fabric/fabric/lib/engine"
	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/nats-io/nats.go/jetstream"
)

// archiveBots are the pipeline bots of log archives.
func archiveBots(data *tenant.Data, js jetstream.JetStream) []engine.Extension {
	return []engine.Extension{
		{Doc: engine.BotDoc{Tag: api.BotLogarchiveReplay,
			Description: "Replays the records of a log archive's minutes into a persistent stream (created when missing), in order, paced by their timestamps; the frame is one row saying what was sent.",
			Params: []engine.ParamDoc{
				{Name: "repo", Type: "string", Required: true, Description: "the log archive repository"},
				{Name: "name", Type: "string", Required: true, Description: "the archive"},
				{Name: "stream", Type: "string", Required: true, Description: "the stream to write into"},
				{Name: "from", Type: "string", Description: "the first minute: ISO 8601 (UTC unless a zone is given), epoch seconds, or a duration before now such as -1h (default: minutes before now)"},
				{Name: "minutes", Type: "int", Default: "15", Description: "how many minutes"},
				{Name: "max_rows", Type: "int", Default: "0", Description: "stop after this many records (0: no limit)"},
				{Name: "speed", Type: "number", Default: "0", Description: "0: as fast as possible; 1.0: the original pacing; 2.0 twice as fast"},
				{Name: "batch_size", Type: "int", Default: "2000", Description: "records in flight before waiting for the oldest acknowledgement"},
				{Name: "label", Type: "string", Description: "added to each record as its replay_label"},
			}},
			Run: func(ctx context.Context, _ *frame.Frame, p map[string]string) (*frame.Frame, error) {
				return replay(ctx, data, js, p)
			}},
	}
}

func replay(ctx context.Context, data *tenant.Data, js jetstream.JetStream, p map[string]string) (*frame.Frame, error) {
	var o logarchive.ReplayOptions
	ints := map[string]*int{"minutes": new(int), "max_rows": &o.MaxRows, "batch_size": &o.BatchSize}
	*ints["minutes"] = 15
	for k, dst := range ints {
		if s := strings.TrimSpace(p[k]); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%s: %q is not a count", k, s)
			}
			*dst = n
		}
	}
	minutes := *ints["minutes"]
	if minutes == 0 {
		return nil, fmt.Errorf("minutes must be above 0")
	}
	o.Span = time.Duration(minutes) * time.Minute
	if s := strings.TrimSpace(p["speed"]); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("speed: %q is not a number, 0 or more", s)
		}
		o.Speed = v
	}
	o.From = time.Now().Add(-o.Span)
	if s := strings.TrimSpace(p["from"]); s != "" {
		t, err := api.ParseWhen(s, time.Now())
		if err != nil {
			return nil, fmt.Errorf("from: %v", err)
		}
		o.From = t
	}
	o.Label = p["label"]
	st, err := data.Store(ctx)
	if err != nil {
		return nil, err
	}
	a, err := logarchive.Open(ctx, st, p["repo"])
	if err != nil {
		return nil, err
	}
	r, err := a.Replay(ctx, js, p["name"], p["stream"], o)
	if err != nil {
		return nil, err
	}
	rate := 0.0
	if r.Seconds > 0 {
		rate = float64(r.Records) / r.Seconds
	}
	return frame.FromRows([]string{"stream", "created", "files", "records", "seconds", "records_per_second", "first", "last"},
		[][]any{{r.Stream, r.Created, int64(r.Files), int64(r.Records), r.Seconds, rate, r.First, r.Last}})
}
