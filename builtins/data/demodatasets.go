package data

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/fabricops/fabric/builtins"
	"github.com/fabricops/fabric/fabric/client/tables"
	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/fabricops/fabric/fabric/lib/starvalue"
	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
)

// maxDemoDatasets bounds the files of a demo directory's datasets folder.
const maxDemoDatasets = 1000

// demoMembers are demo's members that need the data libraries.
func (e env) demoMembers() starlark.StringDict {
	return starlark.StringDict{
		"setup_datasets": doc.Builtin("demo.setup_datasets", `setup_datasets(dir, ip, verify_only=False)

Sets up the datasets of a demo directory: each table file of DIR/datasets
(CSV, JSON, JSON lines, Parquet, Excel) becomes the dataset named after
the file (its name less its extension), added or replaced in the fabric
at ip (as demo.setup finds it). With verify_only=True each file is read
through (every row parsed) and nothing changes. Returns a row per file:
kind, name, status (added, replaced, ok) and detail (its rows).`, e.demoSetupDatasets),
	}
}

// demoDataset is a table file of a datasets folder.
type demoDataset struct{ name, path string }

// demoDatasets lists the table files of DIR/datasets (none when it has no
// such folder), by name; two files of one name are an error.
func demoDatasets(dir string) ([]demoDataset, error) {
	folder := filepath.Join(dir, "datasets")
	entries, err := os.ReadDir(folder)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, builtins.TrimPathError(err)
	}
	var out []demoDataset
	seen := map[string]string{}
	for _, ent := range entries {
		if !ent.Type().IsRegular() || strings.HasPrefix(ent.Name(), ".") {
			continue
		}
		p := filepath.Join(folder, ent.Name())
		if _, _, err := frame.Detect(p, frame.Format("auto")); err != nil {
			return nil, fmt.Errorf("datasets/%s: %v", ent.Name(), err)
		}
		name := ent.Name()
		for ext := filepath.Ext(name); ext != ""; ext = filepath.Ext(name) {
			name = strings.TrimSuffix(name, ext) // data.csv.gz: data
		}
		if other, dup := seen[name]; dup {
			return nil, fmt.Errorf("datasets/%s and datasets/%s would both be dataset %q", other, ent.Name(), name)
		}
		seen[name] = ent.Name()
		out = append(out, demoDataset{name, p})
		if len(out) > maxDemoDatasets {
			return nil, fmt.Errorf("datasets: more than %d files", maxDemoDatasets)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

func (e env) demoSetupDatasets(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var dir, ip string
	var verifyOnly bool
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "dir", &dir, "ip", &ip, "verify_only?", &verifyOnly); err != nil {
		return nil, err
	}
	files, err := demoDatasets(host.From(thread).Path(dir))
	if err != nil {
		return nil, builtins.Fail(b.Name(), err)
	}
	rows := []any{}
	if len(files) == 0 {
		return starvalue.ToStarlark(rows)
	}
	ctx := host.Context(thread)
	if verifyOnly { // every row parsed, nothing sent
		for _, f := range files {
			n, err := countRows(thread, f.path) // its error names the file
			if err != nil {
				return nil, builtins.Fail(b.Name(), err)
			}
			rows = append(rows, datasetRow(f.name, "ok", n))
		}
		return starvalue.ToStarlark(rows)
	}
	c, _, done, err := e.SetupClient(thread, ip)
	if err != nil {
		return nil, builtins.Fail(b.Name(), err)
	}
	defer done()
	for _, f := range files {
		src, err := openSource(thread, f.path, frame.Format("auto"))
		if err != nil {
			return nil, builtins.Fail(b.Name(), err)
		}
		rec, created, err := tables.Of(c).AddDataset(ctx, f.name, "", src, frame.Format("parquet"))
		src.Close()
		if err != nil {
			return nil, builtins.Fail(b.Name(), fmt.Errorf("dataset %s: %v", f.name, err))
		}
		status := "replaced"
		if created {
			status = "added"
		}
		rows = append(rows, datasetRow(f.name, status, rec.NumRows))
	}
	return starvalue.ToStarlark(rows)
}

// countRows reads a table file through and returns its rows.
func countRows(thread *starlark.Thread, path string) (int64, error) {
	src, err := openSource(thread, path, frame.Format("auto"))
	if err != nil {
		return 0, err
	}
	defer src.Close()
	var n int64
	for {
		rec, err := src.Next()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n += rec.NumRows()
		rec.Release()
	}
}

func datasetRow(name, status string, rows int64) starvalue.Map {
	return starvalue.Map{{Key: "kind", Value: "datasets"}, {Key: "name", Value: name}, {Key: "status", Value: status},
		{Key: "detail", Value: plural(rows, "row")}}
}

// plural is n and the noun, in the plural unless n is 1.
func plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
