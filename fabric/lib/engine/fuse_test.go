package engine

import (
	"context"
	"fmt"
	"path/filepath"
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
