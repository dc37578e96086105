package worker

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/fabricops/fabric/fabric/lib/engine"
	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/nats-io/nats.go/jetstream"
)

// streamBots are the pipeline bots of persistent streams, which the
// engine (knowing nothing of NATS) gets from the worker.
func streamBots(js jetstream.JetStream) []engine.Extension {
	return []engine.Extension{
		{Doc: engine.BotDoc{Tag: "@dm:read-stream",
			Description: "Loads the records of a persistent stream as the frame (each record a row, its fields columns): from the first it keeps, or from 'from', to the last it held when the step started.",
			Params: []engine.ParamDoc{
				{Name: "name", Type: "string", Required: true, Description: "the stream"},
				{Name: "from", Type: "string", Description: "the time of the first record: ISO 8601 (UTC unless a zone is given), epoch seconds, or a duration before now such as -15m"},
				{Name: "max_rows", Type: "int", Default: "0", Description: "stop after this many records (0: no limit)"},
				{Name: "follow", Type: "bool", Default: "false", Description: "wait for new records past the last one until max_rows were read or the job is stopped"},
				{Name: "durable", Type: "string", Description: "read through the stream's durable reader of this name: each record is read once by the readers of a name, and the next job goes on where the last stopped (a deployment's service pipeline reads a batch per job this way, its instances sharing the records)"},
			}},
			Run: func(ctx context.Context, _ *frame.Frame, p map[string]string) (*frame.Frame, error) {
				return readStream(ctx, js, p)
			}},
		{Doc: engine.BotDoc{Tag: "@dm:write-stream", Streams: true,
			Description: "Writes each row of the frame in hand to a persistent stream as a record (a JSON object) and passes the frame on.",
			Params:      []engine.ParamDoc{{Name: "name", Type: "string", Required: true, Description: "the stream"}}},
			Run: func(ctx context.Context, in *frame.Frame, p map[string]string) (*frame.Frame, error) {
				return in, writeStream(ctx, js, p["name"], in)
			}},
	}
}

func readStream(ctx context.Context, js jetstream.JetStream, p map[string]string) (*frame.Frame, error) {
	var o streams.ReadOptions
	if s := strings.TrimSpace(p["from"]); s != "" {
		t, err := api.ParseWhen(s, time.Now())
		if err != nil {
			return nil, fmt.Errorf("from: %v", err)
		}
		o.From = t
	}
	if s := p["max_rows"]; s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("max_rows: %q is not a count", s)
		}
		o.MaxRows = n
	}
	o.Durable = strings.TrimSpace(p["durable"])
	switch strings.ToLower(strings.TrimSpace(p["follow"])) {
	case "", "false", "no", "0":
	case "true", "yes", "1":
		o.Follow = true
	default:
		return nil, fmt.Errorf("follow: %q is not true or false", p["follow"])
	}
	return frame.FromJSONLines(func(yield func([]byte) error) error {
		_, err := streams.Read(ctx, js, p["name"], o, func(m streams.Message) error { return yield(m.Data) })
		return err
	})
}

func writeStream(ctx context.Context, js jetstream.JetStream, name string, in *frame.Frame) error {
	w, err := streams.NewWriter(ctx, js, name)
	if err != nil {
		return err
	}
	err = in.WriteTo(w.Lines(ctx), frame.JSONL, frame.NoCompression)
	if ferr := w.Flush(ctx); err == nil {
		err = ferr
	}
	return err
}
