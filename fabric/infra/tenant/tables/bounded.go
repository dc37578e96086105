package tables

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/infra/tenant"
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
	draft := "draft-" + tenant.NewToken()
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
