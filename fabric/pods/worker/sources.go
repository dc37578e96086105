package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/logarchive"
	"github.com/fabricops/fabric/fabric/infra/secret"
	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/fabricops/fabric/fabric/lib/engine"
	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/nats-io/nats.go/jetstream"
)

// Source types: what a worker's bots read from or write to. The first
// five are sources a configuration may name (check-credentials checks
// them); frame and control are the bots that work on the data in hand
// and those that shape a pipeline's run.
const (
	SourceDataset    = "dataset"
	SourceObject     = "object"
	SourceFiles      = "files"
	SourceStream     = "stream"
	SourceLogArchive = "logarchive"
	SourceSecret     = "secret"
	SourceFrame      = "frame"
	SourceControl    = "control"
)

// botSource is a bot's source type and kind: source (it loads data),
// sink (it stores it) or transform.
type botSource struct{ source, kind string }

// botSources classifies the bots that reach something outside the data
// in hand; any other is a transform of the frame, or control when its
// namespace is c or exec.
var botSources = map[string]botSource{
	"@dm:recall":              {SourceDataset, "source"},
	"@dm:savedlist":           {SourceDataset, "source"},
	"@dm:save":                {SourceDataset, "sink"},
	"@dm:delete-dataset":      {SourceDataset, "sink"},
	"@dm:enrich":              {SourceDataset, "transform"},
	"@dm:object-get":          {SourceObject, "source"},
	"@dm:object-list":         {SourceObject, "source"},
	"@dm:object-add":          {SourceObject, "sink"},
	"@dm:object-delete":       {SourceObject, "sink"},
	"@files:loadfile":         {SourceFiles, "source"},
	"@dm:read-stream":         {SourceStream, "source"},
	"@dm:write-stream":        {SourceStream, "sink"},
	api.BotLogarchiveReplay:   {SourceLogArchive, "source"},
	api.BotBotsBySource:       {SourceControl, "source"},
	api.BotCheckCredentials:   {SourceSecret, "source"},
	"@dm:empty":               {SourceFrame, "source"},
	"@dm:addrow":              {SourceFrame, "transform"},
	"@dm:add-missing-columns": {SourceFrame, "transform"},
	"@dm:change-time-format":  {SourceFrame, "transform"},
	"@dm:concat":              {SourceDataset, "transform"},
	"@c:data-loop":            {SourceDataset, "control"},
	"@exec:end-if":            {SourceControl, "control"},
	"*exec:if-shape":          {SourceControl, "control"},
	"@c:new-block":            {SourceControl, "control"},
	"@c:simple-loop":          {SourceControl, "control"},
	"@c:count-loop":           {SourceControl, "control"},
	"@c:timed-loop":           {SourceControl, "control"},
}

func classify(tag string) botSource {
	if s, ok := botSources[tag]; ok && s.source != "" {
		return s
	}
	return botSource{SourceFrame, "transform"}
}

// sourceBots are the bots that describe the worker's bots and check the
// sources a configuration names: what bots-by-source and
// check-credentials run on a worker. all returns every bot of the
// worker, these included.
func sourceBots(data *tenant.Data, js jetstream.JetStream, dataDir string, packages *packageCache, all func() []engine.BotDoc) []engine.Extension {
	return []engine.Extension{
		{Doc: engine.BotDoc{Tag: api.BotBotsBySource,
			Description: "Lists the bots of this worker with their type (source, sink, transform, control) and the source they reach (dataset, object, files, stream, logarchive, secret, frame, control, or the name of a bot package's configured source, under which the package's bots are listed): a row per bot (Bot, Type, Description, Source).",
			Params: []engine.ParamDoc{
				{Name: "sources", Type: "list", Description: "only the bots of these sources, types or bot sources' names (default: all)"},
			}},
			Run: func(ctx context.Context, _ *frame.Frame, p map[string]string) (*frame.Frame, error) {
				pkgRows, err := packageSourceRows(ctx, data, packages)
				if err != nil {
					return nil, err
				}
				return botsBySource(all(), pkgRows, p["sources"])
			}},
		{Doc: engine.BotDoc{Tag: api.BotCheckCredentials,
			Description: "Checks the sources a configuration names, each reached as its bots would reach it from this worker, and the secrets they refer to ({\"$secret\": NAME}) opened, never shown: a row per source (Source Name, Source Type, Status, Reason, Duration (ms)).",
			Params: []engine.ParamDoc{
				{Name: "sources", Type: "string", Required: true, Description: "the sources: a JSON list of objects with name and type (and their configuration)"},
			}},
			Run: func(ctx context.Context, _ *frame.Frame, p map[string]string) (*frame.Frame, error) {
				return checkCredentials(ctx, data, js, dataDir, p["sources"])
			}},
	}
}

// botsBySource is a row per bot of docs, classified, then the rows of
// the bot packages' sources (pkgRows), those of the sources only names
// when it names some.
func botsBySource(docs []engine.BotDoc, pkgRows [][]any, only string) (*frame.Frame, error) {
	want := map[string]bool{}
	for _, s := range strings.Split(only, ",") {
		if s = strings.TrimSpace(s); s != "" {
			want[s] = true
		}
	}
	sort.Slice(docs, func(i, j int) bool { return docs[i].Tag < docs[j].Tag })
	rows := [][]any{}
	for _, d := range docs {
		c := classify(d.Tag)
		if len(want) > 0 && !want[c.source] {
			continue
		}
		rows = append(rows, []any{d.Tag, c.kind, d.Description, c.source})
	}
	for _, r := range pkgRows {
		if len(want) > 0 && !want[r[3].(string)] {
			continue
		}
		rows = append(rows, r)
	}
	return frame.FromRows([]string{"Bot", "Type", "Description", "Source"}, rows)
}

// Credential-check statuses.
const (
	CheckOK    = "OK"
	CheckError = "ERROR"
)

func checkCredentials(ctx context.Context, data *tenant.Data, js jetstream.JetStream, dataDir, text string) (*frame.Frame, error) {
	var sources []map[string]any
	if err := json.Unmarshal([]byte(text), &sources); err != nil {
		return nil, fmt.Errorf("sources: not a JSON list of objects: %v", err)
	}
	st, err := data.Store(ctx)
	if err != nil {
		return nil, err
	}
	secrets := &secret.Store{Store: st}
	rows := [][]any{}
	for _, src := range sources {
		name, _ := src["name"].(string)
		typ, _ := src["type"].(string)
		start := time.Now()
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := checkSource(cctx, data, js, secrets, dataDir, name, typ)
		if err == nil {
			for _, ref := range secret.Refs(src) {
				if _, err = secrets.Reveal(cctx, ref); err != nil {
					err = fmt.Errorf("secret %q does not open: %w", ref, err)
					break
				}
			}
		}
		cancel()
		status, reason := CheckOK, ""
		if err != nil {
			status, reason = CheckError, err.Error()
			if errors.Is(err, context.DeadlineExceeded) {
				reason = "timed out after 10s"
			}
		}
		ms := float64(time.Since(start).Microseconds()) / 1000
		rows = append(rows, []any{name, typ, status, reason, ms})
	}
	return frame.FromRows([]string{"Source Name", "Source Type", "Status", "Reason", "Duration (ms)"}, rows)
}

// checkSource reaches the source name of type typ as its bots would.
func checkSource(ctx context.Context, data *tenant.Data, js jetstream.JetStream, secrets *secret.Store, dataDir, name, typ string) error {
	if name == "" {
		return errors.New("the source has no name")
	}
	switch typ {
	case SourceDataset:
		_, err := data.Dataset(ctx, name)
		return err
	case SourceObject:
		// FOLDER/NAME, as object-get names it.
		i := strings.LastIndex(name, "/")
		if i < 0 {
			return fmt.Errorf("an object source is named FOLDER/NAME, not %q", name)
		}
		_, err := data.Object(ctx, name[:i], name[i+1:])
		return err
	case SourceFiles:
		if dataDir == "" {
			return errors.New("this worker has no data directory")
		}
		if !filepath.IsLocal(name) {
			return fmt.Errorf("%q is outside the tenant's data directory: give a path relative to it, without ..", name)
		}
		root, err := os.OpenRoot(dataDir)
		if err != nil {
			return fmt.Errorf("the tenant's data directory: %v", err)
		}
		defer root.Close()
		f, err := root.Open(name)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return fmt.Errorf("%s: %v", name, err)
		}
		return f.Close()
	case SourceStream:
		_, err := streams.Get(ctx, js, name)
		return err
	case SourceLogArchive:
		st, err := data.Store(ctx)
		if err != nil {
			return err
		}
		a, err := logarchive.Open(ctx, st, name)
		if err != nil {
			return err
		}
		_, err = a.Names(ctx)
		return err
	case SourceSecret:
		_, err := secrets.Reveal(ctx, name)
		return err
	case "":
		return errors.New("the source has no type")
	}
	if found, err := checkPackageSource(ctx, data, name, typ); found {
		return err
	}
	return fmt.Errorf("no bot of this worker reaches sources of type %q (types: dataset, object, files, stream, logarchive, secret, or a bot package's name)", typ)
}
