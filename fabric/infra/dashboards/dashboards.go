// Package dashboards holds what is done to dashboards beyond the verbs
// every artifact kind has: verify checks each widget's stream and columns
// against the tenant's datasets and persistent streams, to-app turns a
// tabbed or sectioned dashboard into an app of one internal dashboard per
// page, and convert rewrites the dashboards written as YAML as JSON.
package dashboards

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/infra/tenant"
)

// Dashboards reaches the dashboards of one tenant and the datasets and
// streams their widgets read.
type Dashboards struct {
	Repo *artifact.Repo
	Data *tenant.Data
}

// Row is a widget's line of a verify report (SPEC 2.4).
type Row struct {
	Dashboard      string   `json:"dashboard"`
	Type           string   `json:"type"`
	WidgetType     string   `json:"widget_type"`
	Title          string   `json:"title"`
	Stream         string   `json:"stream"`
	Columns        []string `json:"columns"`
	StreamStatus   string   `json:"stream_status"`
	MissingColumns []string `json:"missing_columns"`
}

// Stream statuses of a verify row.
const (
	Found    = "found"
	NotFound = "not found"
)

// widget is what verify reads of a widget.
type widget struct {
	Type, Title, Stream string
	Columns             []string
}

// widgets returns the widgets of a dashboard's sections, in order.
func widgets(d *artifact.Doc) ([]widget, error) {
	var sections []struct {
		Widgets []json.RawMessage `json:"widgets"`
	}
	if raw := d.Raw("dashboard_sections"); raw != nil {
		if err := json.Unmarshal(raw, &sections); err != nil {
			return nil, fmt.Errorf("dashboard_sections: %v", err)
		}
	}
	var out []widget
	for _, s := range sections {
		for _, raw := range s.Widgets {
			w, err := artifact.Parse(raw)
			if err != nil {
				return nil, err
			}
			out = append(out, readWidget(w))
		}
	}
	return out, nil
}

// readWidget reads a widget's type, title, stream and columns: the
// string fields named *_column or *-column, and the lists named columns
// or *_columns, in the order they are written.
func readWidget(w *artifact.Doc) widget {
	var out widget
	out.Type, _ = w.String("widget_type")
	out.Title, _ = w.String("title")
	out.Stream, _ = w.String("stream")
	seen := map[string]bool{}
	add := func(c string) {
		if c != "" && !seen[c] {
			seen[c] = true
			out.Columns = append(out.Columns, c)
		}
	}
	for _, k := range w.Keys() {
		switch {
		case strings.HasSuffix(k, "_column") || strings.HasSuffix(k, "-column"):
			c, _ := w.String(k)
			add(c)
		case k == "columns" || strings.HasSuffix(k, "_columns"):
			var cs []string
			_ = json.Unmarshal(w.Raw(k), &cs)
			for _, c := range cs {
				add(c)
			}
		}
	}
	return out
}

// Verify checks the widgets of dashboard name, and of its pages when it
// is an app: a widget's stream is found when the tenant has a dataset or
// a persistent stream of that name, and its columns are missing when the
// dataset, or the stream's last message, does not have them (a stream
// with no message yet cannot tell).
func (ds *Dashboards) Verify(ctx context.Context, name string) ([]Row, error) {
	rec, err := ds.Repo.Get(ctx, artifact.Dashboard, name)
	if err != nil {
		return nil, err
	}
	rows := []Row{}
	sources := map[string]source{}
	check := func(dashboard, typ string, d *artifact.Doc) error {
		ws, err := widgets(d)
		if err != nil {
			return fmt.Errorf("dashboard %q: %v", dashboard, err)
		}
		for _, w := range ws {
			if w.Stream == "" {
				continue // a widget that reads nothing (text, links)
			}
			src, ok := sources[w.Stream]
			if !ok {
				if src, err = ds.lookup(ctx, w.Stream); err != nil {
					return err
				}
				sources[w.Stream] = src
			}
			row := Row{Dashboard: dashboard, Type: typ, WidgetType: w.Type, Title: w.Title,
				Stream: w.Stream, Columns: nonNil(w.Columns), StreamStatus: NotFound, MissingColumns: []string{}}
			if src.found {
				row.StreamStatus = Found
			}
			for _, c := range w.Columns {
				if !src.found || (src.columns != nil && !src.columns[c]) {
					row.MissingColumns = append(row.MissingColumns, c)
				}
			}
			rows = append(rows, row)
		}
		return nil
	}
	if err := check(name, "dashboard", rec.Doc); err != nil {
		return nil, err
	}
	for _, p := range pages(rec.Doc) {
		page, err := ds.Repo.Get(ctx, artifact.Dashboard, p.Name)
		if errors.Is(err, artifact.ErrNotFound) {
			return nil, fmt.Errorf("dashboard %q: its page %q is missing", name, p.Name)
		} else if err != nil {
			return nil, err
		}
		if err := check(p.Name, "page", page.Doc); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// source is what verify learnt of a widget's stream: whether it exists,
// and its columns (nil when they cannot be told).
type source struct {
	found   bool
	columns map[string]bool
}

// lookup finds a widget's stream among the tenant's datasets, then its
// persistent streams.
func (ds *Dashboards) lookup(ctx context.Context, name string) (source, error) {
	set := func(cols []string) map[string]bool {
		m := map[string]bool{}
		for _, c := range cols {
			m[c] = true
		}
		return m
	}
	d, err := ds.Data.Dataset(ctx, name)
	if err == nil {
		return source{found: true, columns: set(d.Columns)}, nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return source{}, err
	}
	st, err := ds.Data.Store(ctx)
	if err != nil {
		return source{}, err
	}
	found, fields, err := st.StreamFields(ctx, name)
	if err != nil || !found {
		return source{}, err
	}
	if fields == nil {
		return source{found: true}, nil
	}
	return source{found: true, columns: set(fields)}, nil
}

// Page is a page of an app: its internal dashboard and its label.
type Page struct {
	Name  string `json:"name"`
	Label string `json:"label"`
}

func pages(d *artifact.Doc) []Page {
	var ps []Page
	if raw := d.Raw("dashboard_pages"); raw != nil {
		_ = json.Unmarshal(raw, &ps)
	}
	return ps
}

// Converted is a line of convert: a dashboard, and whether it was
// rewritten (false when it was JSON already).
type Converted struct {
	Name      string `json:"name"`
	Converted bool   `json:"converted"`
}

// Convert rewrites every dashboard written as YAML as JSON.
func (ds *Dashboards) Convert(ctx context.Context) ([]Converted, error) {
	recs, err := ds.Repo.List(ctx, artifact.Dashboard)
	if err != nil {
		return nil, err
	}
	out := []Converted{}
	for _, rec := range recs {
		name, _ := rec.Doc.String(artifact.Dashboard.Key)
		if rec.Source == "json" {
			out = append(out, Converted{Name: name})
			continue
		}
		rec.Source = "json"
		if err := ds.Repo.Replace(ctx, artifact.Dashboard, name, rec); err != nil {
			return out, err
		}
		out = append(out, Converted{Name: name, Converted: true})
	}
	return out, nil
}
