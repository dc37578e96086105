package portal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/fabricops/fabric/fabric/infra/tenant/tables"
	"github.com/fabricops/fabric/fabric/lib/frame"
)

// filtersOf reads the page's filters from a request's query: hours, and
// like.<column> and eq.<column> for the columns and group filters.
func filtersOf(q map[string][]string) Filters {
	f := Filters{Like: map[string]string{}, Equals: map[string]string{}}
	for k, vs := range q {
		if len(vs) == 0 {
			continue
		}
		switch {
		case k == "hours":
			f.Hours, _ = strconv.ParseFloat(vs[0], 64)
		case strings.HasPrefix(k, "like."):
			f.Like[strings.TrimPrefix(k, "like.")] = vs[0]
		case strings.HasPrefix(k, "eq."):
			f.Equals[strings.TrimPrefix(k, "eq.")] = vs[0]
		}
	}
	return f
}

// handleLive serves a widget's view as server-sent events: a "view"
// event with the whole view at once, then again as records arrive
// (batched: at most one each Batch), until the page goes. A dataset is
// read once, up to MaxDatasetRows rows.
func (s *Server) handleLive(w http.ResponseWriter, r *http.Request, ses *session) {
	name := r.PathValue("name")
	si, err1 := strconv.Atoi(r.PathValue("section"))
	wi, err2 := strconv.Atoi(r.PathValue("widget"))
	if err1 != nil || err2 != nil {
		http.Error(w, "bad widget path", http.StatusBadRequest)
		return
	}
	rec, err := ses.repo.Get(r.Context(), artifact.Dashboard, name)
	if errors.Is(err, artifact.ErrNotFound) {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	} else if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	wd, filtered, err := widgetAt(rec.Doc.Raw("dashboard_sections"), si, wi)
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	if wd.Stream == "" {
		http.Error(w, "the widget reads no stream", http.StatusNotFound)
		return
	}
	f := Filters{}
	if filtered {
		f = filtersOf(r.URL.Query())
	}
	done, err := ses.openLive(s.o.Limits.MaxLivePerSession)
	if err != nil {
		http.Error(w, err.Error(), http.StatusTooManyRequests)
		return
	}
	defer done()
	if !s.live.TryAcquire() {
		http.Error(w, "the portal serves as many live widgets as it may: try again later", http.StatusServiceUnavailable)
		return
	}
	defer s.live.Release()
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	flusher.Flush()
	send := func(event string, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b); err != nil {
			return err
		}
		flusher.Flush()
		return nil
	}
	ctx := r.Context()
	if ds, err := ses.data.Dataset(ctx, wd.Stream); err == nil {
		rows, capped, err := s.readDataset(ctx, ses, wd)
		if err != nil {
			_ = send("failure", err.Error())
			return
		}
		v := view(wd, rows, f, s.now(), s.o.Limits.MaxPoints)
		v.Source, v.Capped = "dataset", capped
		if len(v.Columns) == 0 && wd.Type == "table" {
			v.Columns = ds.Columns
		}
		if send("view", v) != nil {
			return
		}
		s.keepAlive(ctx, w, flusher)
		return
	} else if !errors.Is(err, store.ErrNotFound) {
		_ = send("failure", err.Error())
		return
	}
	s.followStream(ctx, ses, wd, f, send, w, flusher)
}

// keepAlive writes a comment now and then until ctx ends, so that
// proxies keep the connection.
func (s *Server) keepAlive(ctx context.Context, w io.Writer, f http.Flusher) {
	t := time.NewTicker(s.o.KeepAlive)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil {
				return
			}
			f.Flush()
		}
	}
}

// readDataset reads a dataset's rows for a widget, up to MaxDatasetRows.
func (s *Server) readDataset(ctx context.Context, ses *session, wd Widget) ([]row, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, s.o.ReadTimeout)
	defer cancel()
	src, _, err := tables.New(ses.data).OpenDataset(ctx, wd.Stream)
	if err != nil {
		return nil, false, err
	}
	defer src.Close()
	var out []row
	keep := wd.columns()
	now := s.now()
	for {
		rec, err := src.Next()
		if errors.Is(err, io.EOF) {
			return out, false, nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, false, fmt.Errorf("reading dataset %s: timed out after %s", wd.Stream, s.o.ReadTimeout)
			}
			return nil, false, fmt.Errorf("reading dataset %s: %v", wd.Stream, err)
		}
		sch := rec.Schema()
		for i := range int(rec.NumRows()) {
			if len(out) >= s.o.Limits.MaxDatasetRows {
				return out, true, nil
			}
			m := map[string]any{}
			for c := range int(rec.NumCols()) {
				m[sch.Field(c).Name] = jsonValue(frame.ValueAt(rec.Column(c), i))
			}
			out = append(out, project(m, wd.TSColumn, now, keep))
		}
	}
}

// jsonValue makes a dataset's value one JSON reads alike (numbers as
// float64, times as RFC 3339).
func jsonValue(v any) any {
	switch x := v.(type) {
	case nil, string, bool, float64:
		return x
	case time.Time:
		return x.Format(time.RFC3339Nano)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return fmt.Sprint(v)
	}
	return out
}

// buffer is a live widget's rows: the last MaxBufferedRows of its window.
type buffer struct {
	mu     sync.Mutex
	rows   []row
	max    int
	dirty  bool
	capped bool
}

func (b *buffer) add(r row) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.rows) >= b.max {
		// Drop the oldest half at once: amortised, and memory stays bounded.
		n := copy(b.rows, b.rows[len(b.rows)/2:])
		clear(b.rows[n:])
		b.rows = b.rows[:n]
		b.capped = true
	}
	b.rows = append(b.rows, r)
	b.dirty = true
}

// take returns a copy of the rows if they changed since the last take.
func (b *buffer) take(force bool) ([]row, bool, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.dirty && !force {
		return nil, false, false
	}
	b.dirty = false
	return append([]row(nil), b.rows...), b.capped, true
}

// followStream reads a persistent stream from the widget's window on
// (an ordered consumer, no durable state) and sends the view as records
// arrive, at most once each Batch.
func (s *Server) followStream(ctx context.Context, ses *session, wd Widget, f Filters, send func(string, any) error, w io.Writer, fl http.Flusher) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	hours := float64(wd.DurationHours)
	if f.Hours > 0 {
		hours = f.Hours
	}
	var from time.Time
	if hours > 0 {
		from = s.now().Add(-time.Duration(hours * float64(time.Hour)))
	}
	buf := &buffer{max: s.o.Limits.MaxBufferedRows}
	keep := wd.columns()
	if wd.Type == "table" && len(wd.Columns) == 0 {
		keep = nil
	}
	readErr := make(chan error, 1)
	go func() {
		_, err := streams.Read(ctx, ses.js, wd.Stream, streams.ReadOptions{From: from, Follow: true}, func(m streams.Message) error {
			var rec map[string]any
			if len(m.Data) > s.o.Limits.MaxRecordBytes || json.Unmarshal(m.Data, &rec) != nil {
				return nil // not a record a widget draws
			}
			buf.add(project(rec, wd.TSColumn, m.Time, keep))
			return nil
		})
		readErr <- err
	}()
	tick := time.NewTicker(s.o.Batch)
	defer tick.Stop()
	alive := time.NewTicker(s.o.KeepAlive)
	defer alive.Stop()
	first := true
	for {
		select {
		case <-ctx.Done():
			return
		case err := <-readErr:
			if err != nil && ctx.Err() == nil {
				msg := err.Error()
				if errors.Is(err, streams.ErrNotFound) {
					msg = fmt.Sprintf("no dataset or persistent stream named %q", wd.Stream)
				}
				_ = send("failure", msg)
			}
			return
		case <-alive.C:
			if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil {
				return
			}
			fl.Flush()
		case <-tick.C:
			rows, capped, changed := buf.take(first)
			if !changed {
				continue
			}
			first = false
			v := view(wd, rows, f, s.now(), s.o.Limits.MaxPoints)
			v.Source, v.Capped = "stream", capped
			if send("view", v) != nil {
				return
			}
		}
	}
}
