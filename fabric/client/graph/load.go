package graph

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/arangodb/go-driver/v2/arangodb"
	"github.com/fabricops/fabric/fabric/lib/docjson"
	"github.com/fabricops/fabric/fabric/lib/frame"
)

// Defaults of the loads (SPEC 4.12, 8).
const (
	DefaultBatchSize   = 100
	DefaultKeyColumn   = "node_id"
	DefaultLeftColumn  = "left_id"
	DefaultRightColumn = "right_id"
	DefaultOnDuplicate = "update"
	// inFlight is how many batches a load that continues after errors
	// has in flight at once: the store groups their commits.
	inFlight = 4
	// maxRowErrors is how many row errors a load keeps to report.
	maxRowErrors = 100
)

// LoadOptions says how rows become documents and how they are written.
type LoadOptions struct {
	// Database is the database to write into.
	Database string
	// BatchSize is the number of documents per request (default 100).
	BatchSize int
	// OnDuplicate is update, replace or ignore: what a document whose key
	// exists does (default update).
	OnDuplicate string
	// HaltOnError stops the load at the first batch with an error;
	// otherwise failed rows are counted and the load goes on.
	HaltOnError bool
}

// NodeOptions are the options of a node load.
type NodeOptions struct {
	LoadOptions
	// Collection receives the nodes (a document collection, created when
	// missing).
	Collection string
	// KeyColumn holds each node's key (default node_id).
	KeyColumn string
}

// EdgeOptions are the options of an edge load.
type EdgeOptions struct {
	LoadOptions
	// Nodes is the collection the edges' ends are in; Edges receives the
	// edges (an edge collection, created when missing).
	Nodes, Edges string
	// LeftColumn and RightColumn hold the keys of each edge's ends
	// (default left_id and right_id).
	LeftColumn, RightColumn string
	// KeyAttrs are the attributes whose values make an edge's key (default:
	// the left and right columns); SortOnKey sorts the values before
	// hashing, so that an edge and its reverse share a key.
	KeyAttrs  []string
	SortOnKey bool
}

// LoadResult says what a load did.
type LoadResult struct {
	Collection string     `json:"collection"`
	Rows       int        `json:"rows"`
	Written    int        `json:"written"`
	Errors     int        `json:"errors"`
	Halted     bool       `json:"halted"`
	Seconds    float64    `json:"seconds"`
	RowErrors  []RowError `json:"row_errors"`
}

// RowError is the error of one row (rows count from 1, after the header).
type RowError struct {
	Row int    `json:"row"`
	Key string `json:"key"`
	Msg string `json:"error"`
}

// LoadNodes writes the rows of src as documents of a collection: the key
// column becomes _key, every column an attribute.
func (g *Conn) LoadNodes(ctx context.Context, src frame.Source, o NodeOptions) (*LoadResult, error) {
	if o.KeyColumn == "" {
		o.KeyColumn = DefaultKeyColumn
	}
	schema := src.Schema()
	if schema.FieldIndices(o.KeyColumn) == nil {
		return nil, fmt.Errorf("no key column %q (columns: %s)", o.KeyColumn, columnList(schema))
	}
	db, err := g.Database(ctx, o.Database)
	if err != nil {
		return nil, err
	}
	col, err := g.ensureCollection(ctx, db, o.Collection, false)
	if err != nil {
		return nil, err
	}
	keyCol := schema.FieldIndices(o.KeyColumn)[0]
	return load(ctx, col, src, o.LoadOptions, func(rec arrow.Record, i int) (system, error) {
		key, err := keyOf(rec.Column(keyCol), i, o.KeyColumn)
		return system{key: key}, err
	})
}

// LoadEdges writes the rows of src as edges: _from and _to are the nodes
// collection's documents named by the left and right columns, _key a
// stable hash of the key attributes (a row loaded again updates its edge).
func (g *Conn) LoadEdges(ctx context.Context, src frame.Source, o EdgeOptions) (*LoadResult, error) {
	if o.LeftColumn == "" {
		o.LeftColumn = DefaultLeftColumn
	}
	if o.RightColumn == "" {
		o.RightColumn = DefaultRightColumn
	}
	keyAttrs := o.KeyAttrs
	if len(keyAttrs) == 0 {
		keyAttrs = []string{o.LeftColumn, o.RightColumn}
	}
	schema := src.Schema()
	idx := map[string]int{}
	for _, name := range append([]string{o.LeftColumn, o.RightColumn}, keyAttrs...) {
		f := schema.FieldIndices(name)
		if f == nil {
			return nil, fmt.Errorf("no column %q (columns: %s)", name, columnList(schema))
		}
		idx[name] = f[0]
	}
	db, err := g.Database(ctx, o.Database)
	if err != nil {
		return nil, err
	}
	if _, err := g.ensureCollection(ctx, db, o.Nodes, false); err != nil {
		return nil, err
	}
	col, err := g.ensureCollection(ctx, db, o.Edges, true)
	if err != nil {
		return nil, err
	}
	parts := make([]string, len(keyAttrs))
	var buf []byte
	return load(ctx, col, src, o.LoadOptions, func(rec arrow.Record, i int) (system, error) {
		left, err := keyOf(rec.Column(idx[o.LeftColumn]), i, o.LeftColumn)
		if err != nil {
			return system{}, err
		}
		right, err := keyOf(rec.Column(idx[o.RightColumn]), i, o.RightColumn)
		if err != nil {
			return system{}, err
		}
		for j, a := range keyAttrs {
			parts[j] = cellText(rec.Column(idx[a]), i)
		}
		var key string
		key, buf = edgeKey(buf[:0], parts, o.SortOnKey)
		return system{key: key, from: o.Nodes + "/" + left, to: o.Nodes + "/" + right}, nil
	})
}

// EdgeKey is the key of an edge made of the values of its key attributes:
// the first 128 bits of their SHA-256 (values joined by a unit
// separator), as 22 letters and digits (base 62: a key is short, as it is
// stored in every edge index entry, and valid in any key generator's
// rules). With sorted the values are sorted first.
func EdgeKey(values []string, sorted bool) string {
	key, _ := edgeKey(nil, values, sorted)
	return key
}

// edgeKey is EdgeKey joining the values in buf (returned for reuse).
func edgeKey(buf []byte, values []string, sorted bool) (string, []byte) {
	if sorted {
		values = slices.Clone(values)
		slices.Sort(values)
	}
	for i, v := range values {
		if i > 0 {
			buf = append(buf, 0x1f)
		}
		buf = append(buf, v...)
	}
	sum := sha256.Sum256(buf)
	hi, lo := binary.BigEndian.Uint64(sum[:8]), binary.BigEndian.Uint64(sum[8:16])
	var out [22]byte // 62^22 > 2^128
	for i := len(out) - 1; i >= 0; i-- {
		var r uint64
		hi, r = bits.Div64(0, hi, 62)
		lo, r = bits.Div64(r, lo, 62)
		out[i] = base62[r]
	}
	return string(out[:]), buf
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// keyOf returns value i of a key column as a key.
func keyOf(arr arrow.Array, i int, column string) (string, error) {
	if arr.IsNull(i) {
		return "", fmt.Errorf("empty %s", column)
	}
	return cellText(arr, i), nil
}

// cellText is text of a column's value i.
func cellText(arr arrow.Array, i int) string {
	if a, ok := arr.(*array.String); ok && a.IsValid(i) {
		return a.Value(i)
	}
	return text(frame.ValueAt(arr, i))
}

// text renders a value as a key or a key part: numbers without exponent
// or trailing zeros, times in RFC 3339.
func text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return strconv.FormatInt(int64(x), 10)
		}
		return strconv.FormatFloat(x, 'f', -1, 64)
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	}
	return fmt.Sprint(v)
}

func columnList(s *arrow.Schema) string {
	names := make([]string, s.NumFields())
	for i, f := range s.Fields() {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}

// system are the system attributes of a row's document: _key, and an
// edge's _from and _to.
type system struct{ key, from, to string }

// systemNames are the attributes a document's system attributes replace.
var systemNames = map[string]bool{"_key": true, "_from": true, "_to": true, "_id": true, "_rev": true}

// quotedNames returns each column's name as a JSON string and a colon,
// "" for the columns a document leaves out (system attribute names).
func quotedNames(schema *arrow.Schema) []string {
	out := make([]string, schema.NumFields())
	for i, f := range schema.Fields() {
		if !systemNames[f.Name] {
			b, _ := docjson.Append(nil, f.Name)
			out[i] = string(b) + ":"
		}
	}
	return out
}

// appendRow appends row i of rec as a JSON object: the system attributes,
// then each column in order (nulls left out).
func appendRow(b []byte, rec arrow.Record, i int, quoted []string, sys system) ([]byte, error) {
	b = append(b, `{"_key":`...)
	b, _ = docjson.Append(b, sys.key)
	if sys.from != "" {
		b = append(b, `,"_from":`...)
		b, _ = docjson.Append(b, sys.from)
		b = append(b, `,"_to":`...)
		b, _ = docjson.Append(b, sys.to)
	}
	var err error
	for c, name := range quoted {
		if name == "" {
			continue
		}
		col := rec.Column(c)
		if col.IsNull(i) {
			continue
		}
		b = append(append(b, ','), name...)
		if b, err = appendCell(b, col, i); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// appendCell appends the JSON of a column's value i (not null): strings
// and numbers straight from their arrays, the others as frame reads them.
func appendCell(b []byte, col arrow.Array, i int) ([]byte, error) {
	switch a := col.(type) {
	case *array.String:
		return docjson.AppendString(b, a.Value(i)), nil
	case *array.Float64:
		return docjson.AppendFloat(b, a.Value(i))
	case *array.Int64:
		return strconv.AppendInt(b, a.Value(i), 10), nil
	}
	return docjson.Append(b, frame.ValueAt(col, i))
}

// batch is a batch of documents with the source rows they came from.
type batch struct {
	body []byte // the documents as JSON lines
	keys []string
	rows []int
}

// batchResult is what writing a batch gave.
type batchResult struct {
	written int
	errs    []RowError
	err     error // the request failed as a whole
}

// load streams src into col in batches: rows become documents (every
// column an attribute, nulls left out), shape adds the system attributes
// and may refuse a row. Batches are written in order, several at once
// unless the load halts on errors (then one at a time, so that it stops
// right after the first failed batch).
func load(ctx context.Context, col docWriter, src frame.Source, o LoadOptions, shape func(rec arrow.Record, i int) (system, error)) (*LoadResult, error) {
	start := time.Now()
	if o.BatchSize <= 0 {
		o.BatchSize = DefaultBatchSize
	}
	mode, err := overwriteMode(o.OnDuplicate)
	if err != nil {
		return nil, err
	}
	res := &LoadResult{Collection: col.Name(), RowErrors: []RowError{}}
	addErr := func(e RowError) {
		res.Errors++
		if len(res.RowErrors) < maxRowErrors {
			res.RowErrors = append(res.RowErrors, e)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := inFlight
	if o.HaltOnError {
		workers = 1
	}
	todo := make(chan *batch, workers)
	var halted atomic.Bool // with HaltOnError: a batch failed, write no more
	done := make(chan batchResult, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range todo {
				if halted.Load() {
					continue // a batch queued after the failed one: not written
				}
				r := writeBatch(ctx, col, b, mode)
				if o.HaltOnError && (len(r.errs) > 0 || r.err != nil) {
					halted.Store(true)
				}
				done <- r
			}
		}()
	}
	// The reader: rows to batches, in order. Rows refused by shape are
	// counted here; readErr and shapeErrs are read once done is closed,
	// which follows the reader's end (todo closed, the workers done).
	var readErr error
	var shapeErrs []RowError
	stop := make(chan struct{})
	go func() {
		defer close(todo)
		quoted := quotedNames(src.Schema())
		row := 0
		cur := &batch{}
		flush := func() bool {
			if len(cur.rows) == 0 {
				return true
			}
			select {
			case todo <- cur:
			case <-stop:
				return false
			case <-ctx.Done():
				return false
			}
			// The next batch is about as large as this one.
			cur = &batch{body: make([]byte, 0, cap(cur.body)), keys: make([]string, 0, len(cur.keys)), rows: make([]int, 0, len(cur.rows))}
			return true
		}
		for {
			rec, err := src.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				readErr = err
				return
			}
			for i := 0; i < int(rec.NumRows()); i++ {
				row++
				sys, err := shape(rec, i)
				if err != nil {
					shapeErrs = append(shapeErrs, RowError{Row: row, Msg: err.Error()})
					if o.HaltOnError {
						rec.Release()
						flush()
						return
					}
					continue
				}
				mark := len(cur.body)
				if cur.body, err = appendRow(cur.body, rec, i, quoted, sys); err != nil {
					cur.body = cur.body[:mark]
					shapeErrs = append(shapeErrs, RowError{Row: row, Msg: err.Error()})
					continue
				}
				cur.body = append(cur.body, '\n')
				cur.keys = append(cur.keys, sys.key)
				cur.rows = append(cur.rows, row)
				if len(cur.rows) >= o.BatchSize && !flush() {
					rec.Release()
					return
				}
			}
			rec.Release()
		}
		flush()
	}()
	go func() { wg.Wait(); close(done) }()

	var failed error
	for r := range done {
		res.Written += r.written
		for _, e := range r.errs {
			addErr(e)
		}
		if r.err != nil && failed == nil {
			failed = r.err
		}
		if (o.HaltOnError && len(r.errs) > 0 || failed != nil) && !res.Halted {
			res.Halted = true
			close(stop)
		}
	}
	for _, e := range shapeErrs {
		addErr(e)
	}
	if len(shapeErrs) > 0 && o.HaltOnError {
		res.Halted = true
	}
	slices.SortFunc(res.RowErrors, func(a, b RowError) int { return a.Row - b.Row })
	res.Rows = res.Written + res.Errors
	res.Seconds = time.Since(start).Seconds()
	if failed != nil {
		return res, failed
	}
	if readErr != nil {
		return res, readErr
	}
	return res, ctx.Err()
}

// docWriter is the part of a driver's collection a load uses.
type docWriter interface {
	Name() string
	ImportDocumentsWithOptions(ctx context.Context, documents string, documentsType arangodb.CollectionDocumentImportDocumentType, options *arangodb.CollectionDocumentImportOptions) (arangodb.CollectionDocumentImportResponse, error)
}

// importDetail is an error of ArangoDB's import details: "at position 3:
// creating document failed with error 'illegal document key'".
var importDetail = regexp.MustCompile(`^at position (\d+): (?:creating document failed with error '(.*?)'(?:, offending document: .*)?|(.*))$`)

// writeBatch writes one batch through ArangoDB's import API (JSON lines,
// with details): one request, a reply of counts and of the failed rows'
// positions and errors.
func writeBatch(ctx context.Context, col docWriter, b *batch, mode arangodb.CollectionDocumentImportOnDuplicate) batchResult {
	var res batchResult
	details, complete := true, false
	r, err := col.ImportDocumentsWithOptions(ctx, string(b.body), arangodb.ImportDocumentTypeDocuments,
		&arangodb.CollectionDocumentImportOptions{OnDuplicate: &mode, Details: &details, Complete: &complete})
	if err != nil {
		res.err = Error(err)
		return res
	}
	res.written = int(r.Created + r.Updated + r.Ignored)
	for _, d := range r.Details {
		m := importDetail.FindStringSubmatch(d)
		if m == nil {
			continue
		}
		pos, _ := strconv.Atoi(m[1])
		if pos < 0 || pos >= len(b.rows) {
			continue
		}
		msg := m[2]
		if msg == "" {
			msg = m[3]
		}
		res.errs = append(res.errs, RowError{Row: b.rows[pos], Key: b.keys[pos], Msg: msg})
	}
	if missing := int(r.Errors) - len(res.errs); missing > 0 {
		res.errs = append(res.errs, RowError{Msg: fmt.Sprintf("%d rows of the batch from row %d failed without details", missing, b.rows[0])})
	}
	return res
}

// overwriteMode maps --on-duplicate to the import's onDuplicate.
func overwriteMode(s string) (arangodb.CollectionDocumentImportOnDuplicate, error) {
	switch s {
	case "", "update":
		return arangodb.ImportOnDuplicateUpdate, nil
	case "replace":
		return arangodb.ImportOnDuplicateReplace, nil
	case "ignore":
		return arangodb.ImportOnDuplicateIgnore, nil
	}
	return "", fmt.Errorf("on-duplicate %q: want update, replace or ignore", s)
}
