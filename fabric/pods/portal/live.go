package portal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
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

// liveWidget is a widget of a live page: its place ("section.widget"),
// its definition, and whether the page's filters apply to it.
type liveWidget struct {
	key      string
	def      Widget
	filtered bool
}

// liveWidgets returns the widgets of a dashboard that read a stream.
func liveWidgets(sectionsRaw json.RawMessage) ([]liveWidget, error) {
	var secs []Section
	if len(sectionsRaw) > 0 {
		if err := json.Unmarshal(sectionsRaw, &secs); err != nil {
			return nil, fmt.Errorf("dashboard_sections: %v", err)
		}
	}
	var out []liveWidget
	for si, sec := range secs {
		filtered := sec.ShowFilter == nil || *sec.ShowFilter
		for wi, raw := range sec.Widgets {
			var wd Widget
			if err := json.Unmarshal(raw, &wd); err != nil {
				return nil, fmt.Errorf("section %d, widget %d: %v", si, wi, err)
			}
			if wd.Stream != "" {
				out = append(out, liveWidget{key: fmt.Sprintf("%d.%d", si, wi), def: wd, filtered: filtered})
			}
		}
	}
	return out, nil
}

// handleLive serves the views of a dashboard's widgets as server-sent
// events, all of a page's widgets over one connection (a browser opens
// few connections to one server): a "view" event ({"w": "section.widget",
// "view": ...}) with a widget's whole view at once, then again as records
// arrive (batched: at most one each Batch per widget), until the page
// goes; a "failure" event ({"w", "error"}) when a widget cannot be read.
// A dataset is read once, up to MaxDatasetRows rows.
func (s *Server) handleLive(w http.ResponseWriter, r *http.Request, ses *session) {
	name := r.PathValue("name")
	rec, err := ses.repo.Get(r.Context(), artifact.Dashboard, name)
	if err != nil {
		http.Error(w, err.Error(), errStatus(err))
		return
	}
	lws, err := liveWidgets(rec.Doc.Raw("dashboard_sections"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusUnprocessableEntity)
		return
	}
	done, err := ses.openLive(s.o.Limits.MaxLivePerSession)
	if err != nil {
		http.Error(w, err.Error(), http.StatusTooManyRequests)
		return
	}
	defer done()
	if !s.live.TryAcquire() {
		http.Error(w, "the portal serves as many live pages as it may: try again later", http.StatusServiceUnavailable)
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
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	var mu sync.Mutex
	write := func(text string) error {
		mu.Lock()
		defer mu.Unlock()
		if _, err := io.WriteString(w, text); err != nil {
			cancel()
			return err
		}
		flusher.Flush()
		return nil
	}
	send := func(event string, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		return write("event: " + event + "\ndata: " + string(b) + "\n\n")
	}
	f := filtersOf(r.URL.Query())
	var wg sync.WaitGroup
	for i, lw := range lws {
		if i >= s.o.Limits.MaxWidgetsPerPage {
			_ = send("failure", map[string]string{"w": lw.key, "error": fmt.Sprintf("a page draws at most %d live widgets", s.o.Limits.MaxWidgetsPerPage)})
			continue
		}
		wf := Filters{}
		if lw.filtered {
			wf = f
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := s.serveWidget(ctx, ses, lw.def, wf, func(v View) error {
				return send("view", map[string]any{"w": lw.key, "view": v})
			})
			if err != nil && ctx.Err() == nil {
				_ = send("failure", map[string]string{"w": lw.key, "error": err.Error()})
			}
		}()
	}
	s.keepAlive(ctx, write)
	cancel()
	wg.Wait()
}

// serveWidget sends a widget's views until ctx ends: a dataset's once,
// a stream's as its records arrive.
func (s *Server) serveWidget(ctx context.Context, ses *session, wd Widget, f Filters, send func(View) error) error {
	if ds, err := ses.data.Dataset(ctx, wd.Stream); err == nil {
		rows, capped, err := s.readDataset(ctx, ses, wd, f)
		if err != nil {
			return err
		}
		v := view(wd, rows, f, s.now(), s.o.Limits.MaxPoints)
		v.Source, v.Capped = "dataset", capped
		if len(wd.Columns) == 0 && wd.Type == "table" {
			v.Columns = ds.Columns // in the dataset's order
		}
		return send(v)
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return s.followStream(ctx, ses, wd, f, send)
}

// keepAlive writes a comment now and then until ctx ends, so that
// proxies keep the connection.
func (s *Server) keepAlive(ctx context.Context, write func(string) error) {
	t := time.NewTicker(s.o.KeepAlive)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if write(": keep-alive\n\n") != nil {
				return
			}
		}
	}
}

// readDataset reads a dataset's rows for a widget, up to MaxDatasetRows.
func (s *Server) readDataset(ctx context.Context, ses *session, wd Widget, f Filters) ([]row, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, s.o.ReadTimeout)
	defer cancel()
	src, _, err := tables.New(ses.data).OpenDataset(ctx, wd.Stream)
	if err != nil {
		return nil, false, err
	}
	defer src.Close()
	var out []row
	keep := keepColumns(wd, f)
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

// keepColumns are the fields a widget keeps of a record: those it reads
// and those the page's filters test (nil: all, for a table that names
// no columns).
func keepColumns(wd Widget, f Filters) []string {
	if wd.Type == "table" && len(wd.Columns) == 0 {
		return nil
	}
	keep := wd.columns()
	for _, m := range []map[string]string{f.Like, f.Equals} {
		for c, v := range m {
			if v != "" && !slices.Contains(keep, c) {
				keep = append(keep, c)
			}
		}
	}
	return keep
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
func (s *Server) followStream(ctx context.Context, ses *session, wd Widget, f Filters, send func(View) error) error {
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
	keep := keepColumns(wd, f)
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
	first := true
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-readErr:
			if err != nil && ctx.Err() == nil {
				if errors.Is(err, streams.ErrNotFound) {
					return fmt.Errorf("no dataset or persistent stream named %q", wd.Stream)
				}
				return err
			}
			return nil
		case <-tick.C:
			rows, capped, changed := buf.take(first)
			if !changed {
				continue
			}
			first = false
			v := view(wd, rows, f, s.now(), s.o.Limits.MaxPoints)
			v.Source, v.Capped = "stream", capped
			if err := send(v); err != nil {
				return nil // the page went
			}
		}
	}
}
