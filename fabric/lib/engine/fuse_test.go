package engine

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/fabricops/fabric/fabric/lib/lazy"
)

// tableStore is a memStore whose datasets are also Parquet files, opened
// as lazy tables.
type tableStore struct {
	*memStore
	dir    string
	opened int
}

func (s *tableStore) DatasetTable(ctx context.Context, name string) (*lazy.Table, error) {
	if _, err := s.LoadDataset(ctx, name); err != nil {
		return nil, err
	}
	s.opened++
	return lazy.New(lazy.NewFile(filepath.Join(s.dir, name+".parquet"), frame.Parquet)), nil
}

// TestFusedEqualsSteps: a recall fused with the filters and selections
// after it gives what running them one by one gives.
func TestFusedEqualsSteps(t *testing.T) {
	var rows [][]any
	for i := range 5000 {
		var host any = fmt.Sprintf("web-%d", i%17)
		if i%11 == 0 {
			host = nil
		}
		rows = append(rows, []any{int64(i), host, float64(i % 100), []string{"north", "south", "east"}[i%3]})
	}
	f, err := frame.FromRows([]string{"id", "host", "cpu", "region"}, rows)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := f.Write(filepath.Join(dir, "hosts.parquet"), frame.Parquet); err != nil {
		t.Fatal(err)
	}
	pipelines := []string{
		"@dm:recall name = 'hosts' --> *dm:filter cpu > 90",
		"@dm:recall name = 'hosts' --> *dm:filter host is null --> @dm:selectcolumns include = 'id|region'",
		"@dm:recall name = 'hosts' --> @dm:selectcolumns include = '.*' & exclude = 'cpu' --> *dm:filter region = 'east' and id < 100",
		"@dm:recall name = 'hosts' --> *dm:filter id > 100000",
		"@dm:recall name = 'hosts' --> *dm:filter cpu < 3 get host as h, id --> *dm:filter h = 'web-1'",
		"@dm:recall name = 'hosts' --> *dm:filter cpu < 3 --> @dm:head n = 2",
		"@dm:recall name = 'hosts' --> *dm:filter nope = 1",
	}
	for _, pl := range pipelines {
		steps, err := ParseText(pl)
		if err != nil {
			t.Fatal(err)
		}
		plain, ms := fixture(t)
		ms.datasets["hosts"] = f
		want, werr := plain.Run(context.Background(), steps)

		ts := &tableStore{memStore: newMemStore(), dir: dir}
		ts.datasets["hosts"] = f
		fused := &Engine{Store: ts, Now: plain.Now}
		var traces []Trace
		fused.Trace = func(tr Trace) { traces = append(traces, tr) }
		got, gerr := fused.Run(context.Background(), steps)
		if fmt.Sprint(werr) != fmt.Sprint(gerr) {
			t.Errorf("%s: error %v, want %v", pl, gerr, werr)
			continue
		}
		if werr != nil {
			continue
		}
		if ts.opened != 1 {
			t.Errorf("%s: not fused", pl)
		}
		if got.String() != want.String() {
			t.Errorf("%s:\n%s\nwant\n%s", pl, got, want)
		}
		done := 0
		for _, tr := range traces {
			if tr.Status == StatusCompleted {
				done++
			}
		}
		if done != len(steps) {
			t.Errorf("%s: %d steps completed in the traces, want %d", pl, done, len(steps))
		}
	}
}

// TestStreamedEqualsSteps: every streaming bot, run on the batches of a
// recalled dataset as they are read, gives what running the steps one by
// one on the whole table gives: rows, values and types, with nulls, empty
// results, heads that end within a batch or across batches, and steps
// that fail (which then fail as they do when run one by one).
func TestStreamedEqualsSteps(t *testing.T) {
	const n = frame.DefaultBatchSize + 10000 // two batches
	var rows [][]any
	for i := range n {
		var host, tags any = fmt.Sprintf("web-%d", i%17), "a, b"
		if i%11 == 0 {
			host = nil
		}
		if i%3 == 0 {
			tags = fmt.Sprintf("x%d", i%5)
		}
		line := fmt.Sprintf("GET /api/%d 200 %dms", i%50, i%997)
		if i%13 == 0 {
			line = "garbage"
		}
		ts := fmt.Sprintf("2024-01-%02d 10:%02d:00", i%28+1, i%60)
		rows = append(rows, []any{int64(i), host, float64(i % 100), []string{"north", "south", "east"}[i%3], line, tags, ts})
	}
	f, err := frame.FromRows([]string{"id", "host", "cpu", "region", "line", "tags", "ts"}, rows)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := f.Write(filepath.Join(dir, "hosts.parquet"), frame.Parquet); err != nil {
		t.Fatal(err)
	}
	recall := "@dm:recall name = 'hosts' --> "
	pipelines := []string{
		"@dm:eval load = 'cpu * 2' --> *dm:filter load > 150",
		"@dm:rename-columns h = 'host' --> @dm:head n = 70000",
		"*dm:filter cpu < 50 --> @dm:head n = 10 --> @dm:selectcolumns include = 'id|host'",
		"*dm:filter id > 100 --> @dm:head n = 0",
		"@dm:map from = 'host' & to = 'up' & func = 'upper'",
		"@dm:extract column = 'line' & expr = '(?P<verb>[A-Z]+) (?P<path>\\S+) (?P<code>\\d+)'",
		"@dm:grok column = 'line' & pattern = '%{WORD:verb} %{NOTSPACE:path} %{INT:code:int} %{INT:ms:int}ms'",
		"@dm:fixnull columns = 'host' & value = 'none' --> *dm:filter host = 'none'",
		"@dm:dropnull columns = 'host' --> @dm:selectcolumns include = 'host|id'",
		"@dm:explode column = 'tags' --> @dm:head n = 100000",
		"@dm:to-type columns = 'cpu' & type = 'int' --> *dm:filter cpu = 7",
		"@dm:change-time-format columns = 'ts' & from_format = '%Y-%m-%d %H:%M:%S' & to_format = '%d/%m/%Y'",
		"@dm:add-missing-columns columns = 'owner, id'",
		"*dm:filter region = 'nowhere' --> @dm:eval x = 'id + 1'",
		"@dm:eval x = 'id + 1' --> *dm:filter x < 0",
		"@dm:to-type columns = 'host' & type = 'int'",
		"@dm:eval x = '1 // (id - 70000)'",
	}
	for _, pl := range pipelines {
		steps, err := ParseText(recall + pl)
		if err != nil {
			t.Fatalf("%s: %v", pl, err)
		}
		plain, ms := fixture(t)
		ms.datasets["hosts"] = f
		want, werr := plain.Run(context.Background(), steps)

		ts := &tableStore{memStore: newMemStore(), dir: dir}
		ts.datasets["hosts"] = f
		streamed := &Engine{Store: ts, Now: plain.Now}
		var traces []Trace
		streamed.Trace = func(tr Trace) { traces = append(traces, tr) }
		got, gerr := streamed.Run(context.Background(), steps)
		if fmt.Sprint(werr) != fmt.Sprint(gerr) {
			t.Errorf("%s: error %v, want %v", pl, gerr, werr)
			continue
		}
		if werr != nil {
			t.Logf("%s: fails both ways: %v", pl, werr)
			continue
		}
		if ts.opened != 1 {
			t.Errorf("%s: not streamed", pl)
		}
		if d := diffFrames(got, want); d != "" {
			t.Errorf("%s: %s", pl, d)
		}
		ran := 0
		for _, tr := range traces {
			if tr.Status == StatusCompleted && strings.Contains(tr.Message, "stream") {
				ran++
			}
		}
		if ran != len(steps) {
			t.Errorf("%s: %d steps ran in the stream, want %d", pl, ran, len(steps))
		}
	}
}

// diffFrames describes how got differs from want ("" when it does not):
// columns, types, rows and values.
func diffFrames(got, want *frame.Frame) string {
	if g, w := fmt.Sprint(got.DTypes()), fmt.Sprint(want.DTypes()); g != w {
		return fmt.Sprintf("columns %s, want %s", g, w)
	}
	if got.NumRows() != want.NumRows() {
		return fmt.Sprintf("%d rows, want %d", got.NumRows(), want.NumRows())
	}
	var g, w bytes.Buffer
	if err := got.WriteTo(&g, frame.CSV, ""); err != nil {
		return err.Error()
	}
	if err := want.WriteTo(&w, frame.CSV, ""); err != nil {
		return err.Error()
	}
	if !bytes.Equal(g.Bytes(), w.Bytes()) {
		gl, wl := strings.Split(g.String(), "\n"), strings.Split(w.String(), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				return fmt.Sprintf("line %d: %s, want %s", i, gl[i], wl[i])
			}
		}
		return "the values differ"
	}
	return ""
}
