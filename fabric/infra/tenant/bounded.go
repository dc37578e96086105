//go:build !lean

package tenant

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/fabricops/fabric/fabric/lib/lazy"
	"github.com/google/jsonschema-go/jsonschema"
)

// CompileSchema checks that doc (a decoded JSON value) is a valid JSON
// Schema (draft 2020-12, or the draft its $schema names) and compiles it.
func CompileSchema(name string, doc any) (*jsonschema.Resolved, error) {
	invalid := func(err error) error {
		return fmt.Errorf("schema %q is not a valid JSON Schema: %s", name, strings.TrimPrefix(err.Error(), "jsonschema.Schema: "))
	}
	if err := checkTypes(doc); err != nil {
		return nil, invalid(err)
	}
	data, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	var sch jsonschema.Schema
	if err := json.Unmarshal(data, &sch); err != nil {
		return nil, invalid(err)
	}
	rs, err := sch.Resolve(nil)
	if err != nil {
		return nil, invalid(err)
	}
	return rs, nil
}

// jsonTypes are the type names of JSON Schema.
var jsonTypes = map[string]bool{"null": true, "boolean": true, "object": true, "array": true, "number": true, "string": true, "integer": true}

// checkTypes checks the "type" keywords of a schema document, which the
// validator takes on trust: each must name JSON Schema types.
func checkTypes(doc any) error {
	switch d := doc.(type) {
	case map[string]any:
		for k, v := range d {
			if k == "type" {
				names, _ := v.([]any)
				if s, ok := v.(string); ok {
					names = []any{s}
				}
				for _, n := range names {
					if s, _ := n.(string); !jsonTypes[s] {
						return fmt.Errorf("type %v is not one of null, boolean, object, array, number, string, integer", n)
					}
				}
				continue
			}
			if err := checkTypes(v); err != nil {
				return err
			}
		}
	case []any:
		for _, v := range d {
			if err := checkTypes(v); err != nil {
				return err
			}
		}
	}
	return nil
}

// AddSchema stores a schema artifact after checking it compiles.
func (t *Data) AddSchema(ctx context.Context, name, descr string, doc any, overwrite bool) (api.Schema, error) {
	if _, err := CompileSchema(name, doc); err != nil {
		return api.Schema{}, err
	}
	s, err := t.Store(ctx)
	if err != nil {
		return api.Schema{}, err
	}
	var old api.Schema
	if _, err := s.Get(ctx, api.SchemasBucket, store.Key(name), &old); err == nil && !overwrite {
		return api.Schema{}, fmt.Errorf("schema %q exists already (overwrite replaces it)", name)
	}
	sc := api.Schema{Name: name, Description: descr, SavedTime: api.Timestamp(time.Now()), Schema: doc}
	return sc, s.Put(ctx, api.SchemasBucket, store.Key(name), sc, 0)
}

// Schema returns a schema artifact.
func (t *Data) Schema(ctx context.Context, name string) (api.Schema, error) {
	var sc api.Schema
	s, err := t.Store(ctx)
	if err != nil {
		return sc, err
	}
	if _, err := s.Get(ctx, api.SchemasBucket, store.Key(name), &sc); errors.Is(err, store.ErrNotFound) {
		return sc, fmt.Errorf("no schema named %q", name)
	} else if err != nil {
		return sc, err
	}
	return sc, nil
}

// Schemas lists the schema artifacts.
func (t *Data) Schemas(ctx context.Context) ([]api.Schema, error) {
	return listOf[api.Schema](ctx, t, api.SchemasBucket)
}

// DeleteSchema deletes a schema no bounded dataset uses.
func (t *Data) DeleteSchema(ctx context.Context, name string) error {
	if _, err := t.Schema(ctx, name); err != nil {
		return err
	}
	bds, err := t.BoundedDatasets(ctx)
	if err != nil {
		return err
	}
	for _, b := range bds {
		if b.Schema == name {
			return fmt.Errorf("schema %q is used by bounded dataset %q: delete that first", name, b.Name)
		}
	}
	s, _ := t.Store(ctx)
	return s.Delete(ctx, api.SchemasBucket, store.Key(name))
}

// BoundedAdd creates an empty bounded dataset whose data must satisfy the
// schema.
func (t *Data) BoundedAdd(ctx context.Context, name, schema string) (api.BoundedDataset, error) {
	if _, err := t.Schema(ctx, schema); err != nil {
		return api.BoundedDataset{}, err
	}
	s, err := t.Store(ctx)
	if err != nil {
		return api.BoundedDataset{}, err
	}
	var old api.BoundedDataset
	if _, err := s.Get(ctx, api.BoundedBucket, store.Key(name), &old); err == nil {
		return api.BoundedDataset{}, fmt.Errorf("bounded dataset %q exists already", name)
	}
	b := api.BoundedDataset{Name: name, Schema: schema, Drafts: []string{}, DTypes: map[string]string{}, SavedTime: api.Timestamp(time.Now())}
	return b, s.Put(ctx, api.BoundedBucket, store.Key(name), b, 0)
}

// BoundedDataset returns a bounded dataset's record.
func (t *Data) BoundedDataset(ctx context.Context, name string) (api.BoundedDataset, uint64, error) {
	var b api.BoundedDataset
	s, err := t.Store(ctx)
	if err != nil {
		return b, 0, err
	}
	rev, err := s.Get(ctx, api.BoundedBucket, store.Key(name), &b)
	if errors.Is(err, store.ErrNotFound) {
		return b, 0, fmt.Errorf("no bounded dataset named %q", name)
	}
	return b, rev, err
}

// BoundedDatasets lists the bounded dataset records.
func (t *Data) BoundedDatasets(ctx context.Context) ([]api.BoundedDataset, error) {
	return listOf[api.BoundedDataset](ctx, t, api.BoundedBucket)
}

// BoundedImport validates every row of data against the bounded dataset's
// schema and stores it as a draft; with publish the draft becomes the
// dataset's data at once (replacing the previous data only once stored).
// A row that does not fit the schema fails the import with its number and
// the reason; nothing is stored then.
func (t *Data) BoundedImport(ctx context.Context, name string, data *frame.Frame, publish bool) (api.BoundedDataset, error) {
	b, _, err := t.BoundedDataset(ctx, name)
	if err != nil {
		return b, err
	}
	sc, err := t.Schema(ctx, b.Schema)
	if err != nil {
		return b, err
	}
	sch, err := CompileSchema(sc.Name, sc.Schema)
	if err != nil {
		return b, err
	}
	cols := data.Columns()
	for i := 0; i < data.NumRows(); i++ {
		row := map[string]any{}
		for j, v := range data.Row(i) {
			if v == nil {
				continue // a missing value is an absent property
			}
			if t, ok := v.(time.Time); ok {
				v = t.UTC().Format(time.RFC3339Nano)
			}
			row[cols[j]] = v
		}
		if err := sch.Validate(row); err != nil {
			return b, fmt.Errorf("row %d does not fit schema %q: %s", i+1, sc.Name, oneLine(err))
		}
	}
	draft := "draft-" + NewToken()
	stored, err := t.putSource(ctx, "bounded/"+store.Key(name)+"/"+draft+".parquet", data.Source(), fmtParquet)
	if err != nil {
		return b, err
	}
	s, _ := t.Store(ctx)
	b, rev, err := t.BoundedDataset(ctx, name)
	if err != nil {
		_ = s.DeleteBlob(ctx, stored.path)
		return b, err
	}
	oldData := b.Datafile
	if publish {
		b.Datafile = stored.path
		b.DTypes, _ = dtypeMap(stored.stats.DTypes)
		b.NumRows, b.NumColumns, b.MemSizeMB = stored.stats.Rows, stored.stats.Columns, stored.stats.MemSizeMB()
	} else {
		b.Drafts = append(b.Drafts, stored.path)
	}
	b.SavedTime = api.Timestamp(time.Now())
	if err := s.Put(ctx, api.BoundedBucket, store.Key(name), b, rev); err != nil {
		_ = s.DeleteBlob(ctx, stored.path)
		return b, err
	}
	if publish && oldData != "" {
		_ = s.DeleteBlob(ctx, oldData)
	}
	return b, nil
}

// BoundedTable returns a bounded dataset's published data as a lazy
// table, and its record.
func (t *Data) BoundedTable(ctx context.Context, name string) (*lazy.Table, api.BoundedDataset, error) {
	b, _, err := t.BoundedDataset(ctx, name)
	if err != nil {
		return nil, b, err
	}
	if b.Datafile == "" {
		return nil, b, fmt.Errorf("bounded dataset %q has no published data yet (bounded-import adds it)", name)
	}
	return lazy.New(t.StoredInput(b.Datafile, fmtParquet, lazy.Meta{Rows: b.NumRows})), b, nil
}

// BoundedDelete deletes a bounded dataset's drafts, then its data and
// record.
func (t *Data) BoundedDelete(ctx context.Context, name string) error {
	b, _, err := t.BoundedDataset(ctx, name)
	if err != nil {
		return err
	}
	s, _ := t.Store(ctx)
	for _, d := range b.Drafts {
		if err := s.DeleteBlob(ctx, d); err != nil {
			return err
		}
	}
	if b.Datafile != "" {
		if err := s.DeleteBlob(ctx, b.Datafile); err != nil {
			return err
		}
	}
	return s.Delete(ctx, api.BoundedBucket, store.Key(name))
}

// DraftNames returns the draft ids of drafts paths, for display.
func DraftNames(paths []string) []string {
	out := []string{}
	for _, p := range paths {
		i := strings.LastIndex(p, "/")
		out = append(out, strings.TrimSuffix(p[i+1:], ".parquet"))
	}
	return slices.Clip(out)
}

// Cleaning a validation error: "validating root: validating
// /properties/cpu: maximum: 150/1 is greater than 100.000000" reads
// "at /cpu: maximum: 150 is greater than 100".
var (
	validatingRe = regexp.MustCompile(`validating (/[^:]*): `)
	rationalRe   = regexp.MustCompile(`\b-?\d+/\d+\b`)
	decimalRe    = regexp.MustCompile(`\b(-?\d+)\.(\d*?)0+\b`)
)

// oneLine renders a validation error in one line, with the instance
// path of what failed.
func oneLine(err error) string {
	msg := strings.Join(strings.Fields(err.Error()), " ")
	msg = strings.ReplaceAll(msg, "validating root: ", "")
	path := ""
	msg = validatingRe.ReplaceAllStringFunc(msg, func(m string) string {
		p := validatingRe.FindStringSubmatch(m)[1]
		p = strings.ReplaceAll(p, "/properties/", "/")
		p = strings.ReplaceAll(p, "/items", "")
		path = p
		return ""
	})
	// The validator prints numbers as fractions (193.5 as 387/2).
	msg = rationalRe.ReplaceAllStringFunc(msg, func(m string) string {
		r, ok := new(big.Rat).SetString(m)
		if !ok {
			return m
		}
		f, _ := r.Float64()
		return strconv.FormatFloat(f, 'g', -1, 64)
	})
	msg = decimalRe.ReplaceAllStringFunc(msg, func(m string) string {
		return strings.TrimSuffix(strings.TrimRight(m, "0"), ".")
	})
	if path != "" {
		return "at " + path + ": " + msg
	}
	return msg
}
