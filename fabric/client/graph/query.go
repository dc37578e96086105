package graph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/arangodb/go-driver/v2/arangodb"
	"github.com/arangodb/go-driver/v2/arangodb/shared"
	"github.com/fabricops/fabric/fabric/lib/aql"
	"github.com/fabricops/fabric/fabric/lib/cfxql"
	"github.com/fabricops/fabric/fabric/lib/docjson"
)

// queryBatch is the cursor batch size of the queries.
const queryBatch = 1000

// AQL runs an AQL query with bind variables and calls fn with each result
// as JSON text until fn returns false or the results end. It returns the
// number of results the query had (all of them, when the server counts;
// else those read).
func (g *Conn) AQL(ctx context.Context, database, query string, binds map[string]any, fn func(raw json.RawMessage) bool) (int, error) {
	n, _, err := g.AQLWrites(ctx, database, query, binds, fn)
	return n, err
}

// Writes are what a query wrote, as the server counts them: documents
// written, and those whose write failed under ignoreErrors.
type Writes struct {
	Executed int64 `json:"executed"`
	Ignored  int64 `json:"ignored"`
}

// AQLWrites is AQL, also returning what the query wrote.
func (g *Conn) AQLWrites(ctx context.Context, database, query string, binds map[string]any, fn func(raw json.RawMessage) bool) (int, Writes, error) {
	db, err := g.Database(ctx, database)
	if err != nil {
		return 0, Writes{}, err
	}
	return runQuery(ctx, db, query, binds, fn)
}

// runQuery is AQLWrites in a database at hand.
func runQuery(ctx context.Context, db arangodb.Database, query string, binds map[string]any, fn func(raw json.RawMessage) bool) (int, Writes, error) {
	cur, err := db.Query(ctx, query, &arangodb.QueryOptions{BindVars: binds, BatchSize: queryBatch, Count: true})
	if err != nil {
		return 0, Writes{}, Error(err)
	}
	defer cur.Close()
	st := cur.Statistics()
	w := Writes{Executed: int64(st.WritesExecutedInt), Ignored: int64(st.WritesIgnoredInt)}
	n := 0
	for cur.HasMore() {
		var raw json.RawMessage
		if _, err := cur.ReadDocument(ctx, &raw); err != nil {
			if shared.IsNoMoreDocuments(err) || errors.Is(err, io.EOF) {
				break
			}
			return n, w, Error(err)
		}
		n++
		if !fn(raw) {
			if c := int(cur.Count()); c > n {
				n = c
			}
			return n, w, nil
		}
	}
	return n, w, nil
}

// FindOptions is a collection query (graphdb query).
type FindOptions struct {
	Database, Collection string
	// Query is a CFXQL filter expression ("*" or empty: every document);
	// its GET columns, if any, project the rows.
	Query string
	// MaxRows bounds the rows returned (default 100).
	MaxRows int
	// SortBy are the columns to order by, Desc the direction.
	SortBy []string
	Desc   bool
}

// Find returns up to MaxRows documents of a collection that match a
// filter expression, ordered by SortBy, and the names of the GET columns
// when the expression projects (nil otherwise). Numbers are int64 when
// integral, float64 otherwise. The documents are streamed from
// the server and filtered here, so that any expression works the same on
// every server; without an order it stops at MaxRows matches, with one it
// keeps only the best MaxRows while it reads.
func (g *Conn) Find(ctx context.Context, o FindOptions) ([]map[string]any, []string, error) {
	src := o.Query
	if src == "" {
		src = "*"
	}
	q, err := cfxql.Parse(src)
	if err != nil {
		return nil, nil, fmt.Errorf("query: %w", err)
	}
	if o.MaxRows <= 0 {
		o.MaxRows = 100
	}
	db, err := g.Database(ctx, o.Database)
	if err != nil {
		return nil, nil, err
	}
	if _, err := db.GetCollection(ctx, o.Collection, nil); err != nil {
		if IsNotFound(err) {
			return nil, nil, fmt.Errorf("no collection %q in database %q", o.Collection, o.Database)
		}
		return nil, nil, Error(err)
	}
	less := func(a, b map[string]any) int {
		for _, c := range o.SortBy {
			if r := aql.Compare(a[c], b[c]); r != 0 {
				if o.Desc {
					return -r
				}
				return r
			}
		}
		return 0
	}
	var rows []map[string]any
	trim := func() {
		slices.SortStableFunc(rows, less)
		if len(rows) > o.MaxRows {
			rows = rows[:o.MaxRows]
		}
	}
	var decodeErr error
	text, binds := "FOR d IN @@c RETURN d", map[string]any{"@c": o.Collection}
	if q.MatchesAll() && len(o.SortBy) == 0 {
		// Nothing to filter or order here: the server stops at MaxRows.
		text, binds["n"] = "FOR d IN @@c LIMIT @n RETURN d", o.MaxRows
	}
	_, _, err = runQuery(ctx, db, text, binds, func(raw json.RawMessage) bool {
		doc, err := decodeDoc(raw)
		if err != nil {
			decodeErr = err
			return false
		}
		if ok, _ := q.Match(doc); !ok {
			return true
		}
		rows = append(rows, doc)
		if len(o.SortBy) == 0 {
			return len(rows) < o.MaxRows
		}
		if len(rows) >= 2*o.MaxRows+1024 {
			trim()
		}
		return true
	})
	if err == nil {
		err = decodeErr
	}
	if err != nil {
		return nil, nil, err
	}
	trim()
	proj := q.Projection()
	if proj == nil {
		return rows, nil, nil
	}
	names := make([]string, len(proj))
	for i, c := range proj {
		names[i] = c.Name
		if c.Alias != "" {
			names[i] = c.Alias
		}
	}
	for i, r := range rows {
		p := make(map[string]any, len(proj))
		for j, c := range proj {
			p[names[j]] = r[c.Name]
		}
		rows[i] = p
	}
	return rows, names, nil
}

// decodeDoc decodes a document: numbers int64 when integral, else
// float64.
func decodeDoc(raw []byte) (map[string]any, error) {
	doc, err := docjson.DecodeObject(raw)
	if err != nil {
		return nil, err
	}
	for k, v := range doc {
		doc[k] = numbers(v)
	}
	return doc, nil
}

func numbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = numbers(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = numbers(x[k])
		}
	}
	return v
}
