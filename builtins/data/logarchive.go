package data

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/fabricops/fabric/builtins"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/client/tables"
	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/fabricops/fabric/fabric/lib/safefile"
	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
)

// logarchiveModule is the logarchive module: the tenant's log archive
// repositories and the archives in them (SPEC 2.13, 4.12).
func (e env) logarchiveModule() starlark.Value {
	return doc.Module("logarchive", "Log archives: repositories in the tenant's object store, minutes of records as gzipped JSON lines.", starlark.StringDict{
		"add_platform": doc.Builtin("logarchive.add_platform", `add_platform(repo, prefix, retention=0, streams=[])

Adds a log archive repository (a bucket of the tenant's object store)
whose archives live under prefix; retention (days) deletes older minutes
(0: not managed). The leading scheduler archives each of streams into it
(under the stream's name), minute by minute. Returns its record (name,
endpoint, bucket, prefix, retention_days, created, streams).`, e.logarchiveAdd),
		"repos": doc.Builtin("logarchive.repos", `repos()

Returns the repositories.`, e.logarchiveRepos),
		"names": doc.Builtin("logarchive.names", `names(repo)

Returns the names archived in a repository.`, e.logarchiveNames),
		"data_size": doc.Builtin("logarchive.data_size", `data_size(repo, name, from_=None, minutes=15)

Returns the size of an archive's minutes from from_ (default: minutes
before now) for minutes: one row per minute (minute, files, bytes).`, e.logarchiveSize),
		"read": doc.Builtin("logarchive.read", `read(repo, name, from_=None, minutes=15, max_rows=0)

Returns the records of an archive's minutes from from_ (default: minutes
before now) for minutes as a frame (a row per record, in order; a column
per field), at most max_rows when above 0 (a record that is not a JSON
object comes as {"message": text}).`, e.logarchiveRead),
		"replay": doc.Builtin("logarchive.replay", `replay(repo, name, stream, site, from_=None, minutes=15, max_rows=0, speed=0, batch_size=2000, label="", timeout=3600)

Replays the records of an archive's minutes into stream (created when
missing) from a worker of site (a name or a pattern), as a job, and
waits for it: records in order, each once, paced by their timestamps
(speed 0 as fast as possible, 1.0 the original pacing, 2.0 twice as
fast); batch_size records in flight at a time; label, when given, added
to each record as its replay_label. Returns {"jobid", "stream",
"created", "files", "records", "seconds", "duration" (as text),
"records_per_second", "first", "last"}. Ctrl-C stops waiting, not the job (evict it).`, e.logarchiveReplay),
		"play": doc.Builtin("logarchive.play", `play(repo, name, fn, from_=None, minutes=15, max_rows=0, speed=0)

Calls fn(record) with the records of an archive's minutes in order, as
read does, paced by their timestamps (the "timestamp" field, ISO 8601):
speed 0 as fast as possible, 1.0 at the original pace, 2.0 twice as
fast, 0.5 half as fast. Returns how many. Ctrl-C stops it.`, e.logarchivePlay),
		"download": doc.Builtin("logarchive.download", `download(repo, name, out, from_=None, minutes=15, flatten=False)

Writes an archive's objects of those minutes, gzipped as stored, under the
directory out: in their YYYY/MM/DD/HH/MM/ folders, or all in out with
flatten=True (named by minute). Returns {"files", "bytes"}.`, e.logarchiveDownload),
	})
}

func (e env) logarchiveAdd(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var repo, prefix string
	retention := 0
	var streamsV starlark.Value = starlark.NewList(nil)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "repo", &repo, "prefix", &prefix, "retention?", &retention, "streams?", &streamsV); err != nil {
		return nil, err
	}
	names, err := columnNames(streamsV)
	if err != nil {
		return nil, fmt.Errorf("%s: streams: %v", b.Name(), err)
	}
	return e.Call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		st, err := c.Data.Store(ctx)
		if err != nil {
			return nil, err
		}
		endpoint := ""
		if len(c.Config.NATS.URLs) > 0 {
			endpoint = c.Config.NATS.URLs[0]
		}
		return client.AddArchiveRepo(ctx, st, repo, prefix, endpoint, retention, names...)
	})
}

func (e env) logarchiveRepos(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	return e.Call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		st, err := c.Data.Store(ctx)
		if err != nil {
			return nil, err
		}
		return client.ArchiveRepos(ctx, st)
	})
}

// archiveCall runs fn with the repository repo opened.
func (e env) archiveCall(thread *starlark.Thread, b *starlark.Builtin, repo string, fn func(ctx context.Context, a *client.Archive) (any, error)) (starlark.Value, error) {
	return e.Call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		st, err := c.Data.Store(ctx)
		if err != nil {
			return nil, err
		}
		a, err := client.OpenArchive(ctx, st, repo)
		if err != nil {
			return nil, err
		}
		return fn(ctx, a)
	})
}

func (e env) logarchiveNames(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var repo string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "repo", &repo); err != nil {
		return nil, err
	}
	return e.archiveCall(thread, b, repo, func(ctx context.Context, a *client.Archive) (any, error) { return a.Names(ctx) })
}

// archiveRange reads the from_ and minutes arguments: the range of
// minutes [from, from+minutes), from defaulting to minutes before now.
func archiveRange(b *starlark.Builtin, from starlark.Value, minutes int) (time.Time, time.Duration, error) {
	if minutes <= 0 {
		return time.Time{}, 0, fmt.Errorf("%s: minutes must be above 0, not %d", b.Name(), minutes)
	}
	span := time.Duration(minutes) * time.Minute
	t, err := readWhen(b, from)
	if err != nil {
		return time.Time{}, 0, err
	}
	if t.IsZero() {
		t = time.Now().Add(-span)
	}
	return t, span, nil
}

func (e env) logarchiveSize(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var repo, name string
	var from starlark.Value = starlark.None
	minutes := 15
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "repo", &repo, "name", &name, "from_?", &from, "minutes?", &minutes); err != nil {
		return nil, err
	}
	t, span, err := archiveRange(b, from, minutes)
	if err != nil {
		return nil, err
	}
	return e.archiveCall(thread, b, repo, func(ctx context.Context, a *client.Archive) (any, error) {
		files, err := a.Files(ctx, name, t, span)
		if err != nil {
			return nil, err
		}
		type row struct {
			Minute string `json:"minute"`
			Files  int    `json:"files"`
			Bytes  int64  `json:"bytes"`
		}
		rows := []row{}
		for _, f := range files {
			m := api.Timestamp(f.Minute)
			if len(rows) == 0 || rows[len(rows)-1].Minute != m {
				rows = append(rows, row{Minute: m})
			}
			rows[len(rows)-1].Files++
			rows[len(rows)-1].Bytes += f.Size
		}
		return rows, nil
	})
}

func (e env) logarchiveRead(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var repo, name string
	var from starlark.Value = starlark.None
	minutes, maxRows := 15, 0
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "repo", &repo, "name", &name, "from_?", &from, "minutes?", &minutes, "max_rows?", &maxRows); err != nil {
		return nil, err
	}
	t, span, err := archiveRange(b, from, minutes)
	if err != nil {
		return nil, err
	}
	return e.archiveCall(thread, b, repo, func(ctx context.Context, a *client.Archive) (any, error) {
		files, err := a.Files(ctx, name, t, span)
		if err != nil {
			return nil, err
		}
		f, err := frame.FromJSONLines(func(yield func([]byte) error) error {
			n := 0
			errEnough := errors.New("enough")
			err := a.Read(ctx, files, func(r []byte) error {
				if r[0] != '{' || !json.Valid(r) {
					r, _ = json.Marshal(map[string]string{"message": string(r)})
				}
				if err := yield(r); err != nil {
					return err
				}
				if n++; maxRows > 0 && n >= maxRows {
					return errEnough
				}
				return nil
			})
			if errors.Is(err, errEnough) {
				err = nil
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		return NewFrameValue(f), nil
	})
}

func (e env) logarchivePlay(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var repo, name string
	var fn starlark.Callable
	var from, speedV starlark.Value = starlark.None, starlark.MakeInt(0)
	minutes, maxRows := 15, 0
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "repo", &repo, "name", &name, "fn", &fn, "from_?", &from, "minutes?", &minutes, "max_rows?", &maxRows, "speed?", &speedV); err != nil {
		return nil, err
	}
	speed, ok := starlark.AsFloat(speedV)
	if !ok || speed < 0 {
		return nil, fmt.Errorf("%s: speed must be a number, 0 or more", b.Name())
	}
	t, span, err := archiveRange(b, from, minutes)
	if err != nil {
		return nil, err
	}
	n := 0
	var cbErr error
	_, err = e.archiveCall(thread, b, repo, func(ctx context.Context, a *client.Archive) (any, error) {
		files, err := a.Files(ctx, name, t, span)
		if err != nil {
			return nil, err
		}
		pace := client.NewArchivePacer(speed)
		errEnough := fmt.Errorf("enough")
		err = a.Read(ctx, files, func(r []byte) error {
			if ts, ok := client.ArchiveRecordTime(r); ok {
				if err := pace.Wait(ctx, ts); err != nil {
					return err
				}
			}
			if _, err := starlark.Call(thread, fn, starlark.Tuple{recordValue(r)}, nil); err != nil {
				cbErr = err
				return err
			}
			if n++; maxRows > 0 && n >= maxRows {
				return errEnough
			}
			return nil
		})
		if err == errEnough {
			err = nil
		}
		return nil, err
	})
	if cbErr != nil {
		return nil, cbErr
	}
	if err != nil {
		return nil, err
	}
	return starlark.MakeInt(n), nil
}

func (e env) logarchiveDownload(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var repo, name, outDir string
	var from starlark.Value = starlark.None
	minutes, flatten := 15, false
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "repo", &repo, "name", &name, "out", &outDir, "from_?", &from, "minutes?", &minutes, "flatten?", &flatten); err != nil {
		return nil, err
	}
	t, span, err := archiveRange(b, from, minutes)
	if err != nil {
		return nil, err
	}
	dir := host.From(thread).Path(outDir)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s: out: %s is not a directory", b.Name(), outDir)
	}
	return e.archiveCall(thread, b, repo, func(ctx context.Context, a *client.Archive) (any, error) {
		files, err := a.Files(ctx, name, t, span)
		if err != nil {
			return nil, err
		}
		var n int
		var size int64
		for _, f := range files {
			rel := strings.TrimPrefix(f.Path, a.Repo.Prefix+"/"+name+"/")
			if flatten {
				rel = strings.ReplaceAll(rel, "/", "_")
			}
			path := filepath.Join(dir, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return nil, err
			}
			err := safefile.Write(path, func(w io.Writer) error { return a.Download(ctx, f, w) })
			if err != nil {
				return nil, err
			}
			n++
			size += f.Size
		}
		return map[string]any{"files": n, "bytes": size}, nil
	})
}

func (e env) logarchiveReplay(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var repo, name, stream, site, label string
	var from, speedV starlark.Value = starlark.None, starlark.MakeInt(0)
	minutes, maxRows, batch := 15, 0, client.ArchiveBatchSize
	timeout := 3600.0
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "repo", &repo, "name", &name, "stream", &stream, "site", &site,
		"from_?", &from, "minutes?", &minutes, "max_rows?", &maxRows, "speed?", &speedV, "batch_size?", &batch, "label?", &label, "timeout?", &timeout); err != nil {
		return nil, err
	}
	speed, ok := starlark.AsFloat(speedV)
	switch {
	case !ok || speed < 0:
		return nil, fmt.Errorf("%s: speed must be a number, 0 or more", b.Name())
	case batch <= 0:
		return nil, fmt.Errorf("%s: batch_size must be above 0, not %d", b.Name(), batch)
	case maxRows < 0:
		return nil, fmt.Errorf("%s: max_rows must be 0 or more, not %d", b.Name(), maxRows)
	case strings.TrimSpace(site) == "":
		return nil, fmt.Errorf("%s: site is required (a site name or pattern)", b.Name())
	case timeout <= 0:
		return nil, fmt.Errorf("%s: timeout must be above 0", b.Name())
	}
	if err := client.StreamCheckName(stream); err != nil {
		return nil, fmt.Errorf("%s: stream: %v", b.Name(), err)
	}
	t, span, err := archiveRange(b, from, minutes)
	if err != nil {
		return nil, err
	}
	params := map[string]string{"repo": repo, "name": name, "stream": stream, "from": t.UTC().Format(time.RFC3339Nano),
		"minutes": strconv.Itoa(int(span / time.Minute)), "max_rows": strconv.Itoa(maxRows),
		"speed": strconv.FormatFloat(speed, 'g', -1, 64), "batch_size": strconv.Itoa(batch), "label": label}
	return e.Call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		st, err := c.Data.Store(ctx)
		if err != nil {
			return nil, err
		}
		if _, err := client.OpenArchive(ctx, st, repo); err != nil {
			return nil, err
		}
		keys := []string{"repo", "name", "stream", "from", "minutes", "max_rows", "speed", "batch_size", "label"}
		resp, err := builtins.StartBot(ctx, c, api.BotLogarchiveReplay, keys, params, client.Placement{Site: site})
		if err != nil {
			return nil, err
		}
		j, err := c.Wait(ctx, resp.JobID, time.Duration(timeout*float64(time.Second)), nil)
		if err != nil {
			return nil, err
		}
		if j.Status != api.JobCompleted {
			return nil, fmt.Errorf("replay job %s %s: %s", j.JobID, strings.ToLower(j.Status), j.Reason)
		}
		t, _, err := tables.Output(ctx, c, j.JobID)
		if err != nil {
			return nil, err
		}
		f, err := t.Collect(ctx)
		if err != nil {
			return nil, err
		}
		if f.NumRows() != 1 {
			return nil, fmt.Errorf("replay job %s: its output has %d rows, not 1", j.JobID, f.NumRows())
		}
		out := map[string]any{"jobid": j.JobID}
		for i, col := range f.Columns() {
			out[col] = f.Row(0)[i]
		}
		if secs, ok := out["seconds"].(float64); ok {
			out["duration"] = time.Duration(secs * float64(time.Second)).Round(time.Millisecond).String()
		}
		return out, nil
	})
}
