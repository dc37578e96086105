package frame

import (
	"bytes"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// newParquetSource reads a whole Parquet file, as a scan of every
// column does (row groups decoded in parallel, in order).
func newParquetSource(r io.Reader, name string, o options) (Source, error) {
	ras, ok := r.(parquet.ReaderAtSeeker)
	if !ok {
		data, err := io.ReadAll(r)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		ras = bytes.NewReader(data)
	}
	return OpenParquet(ras, name, Scan{}, func(x *options) { *x = o })
}

// recoverCorrupt, deferred, turns a panic into an error naming the file:
// Arrow's Parquet reader panics on some corrupt files (a page header
// without its body, a column shorter than its row group) where it would
// fail. Its reads are therefore never parallel (Arrow would run them on
// goroutines of its own, out of a recover's reach: the scan's workers
// are the fabric's), and the arrays it returns are validated before
// anything indexes them.
func recoverCorrupt(name string, err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%s: corrupt Parquet data: %v", name, r)
	}
}

// rowGroupRows is the number of rows per Parquet row group.
const rowGroupRows = 4 * DefaultBatchSize

// parquetSink writes batches as zstd-compressed Parquet, buffering up to
// rowGroupRows rows per row group. The file is laid out when the first
// batch comes: its text columns with few distinct values get dictionaries.
type parquetSink struct {
	w      io.Writer
	schema *arrow.Schema
	fw     *pqarrow.FileWriter
	dicts  *textDicts // the text columns given to the writer as dictionaries (nil: none)
	closed bool
}

func newParquetSink(w io.Writer, schema *arrow.Schema) (*parquetSink, error) {
	props, aprops, _ := parquetProps(schema, nil)
	if _, err := pqarrow.ToParquet(schema, props, aprops); err != nil {
		return nil, fmt.Errorf("parquet: %v", err)
	}
	return &parquetSink{w: w, schema: schema}, nil
}

// dictionarySample is how many rows of the first batch tell whether a
// text column is worth a dictionary.
const dictionarySample = 8192

// parquetProps returns the writer's properties; first, when set, is the
// first batch, which chooses the text columns encoded with a dictionary
// (dictText: their indices).
func parquetProps(schema *arrow.Schema, first arrow.Record) (props *parquet.WriterProperties, aprops pqarrow.ArrowWriterProperties, dictText []int) {
	mem := memory.DefaultAllocator
	opts := []parquet.WriterProperty{
		parquet.WithAllocator(mem),
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithCompressionLevel(1),
		parquet.WithMaxRowGroupLength(rowGroupRows),
		// Dictionaries pay for text with few distinct values (hosts,
		// states, regions: stored once, compared once). Text that is
		// mostly distinct (messages) and floats are written plain,
		// integers and times as deltas (deltaEncoded): hashing each value
		// only to fall back to plain encoding cost a third of the write.
		parquet.WithDictionaryDefault(false),
		// A dictionary that outgrows this falls back to plain encoding.
		parquet.WithDictionaryPageSizeLimit(256 << 10),
	}
	for i, f := range schema.Fields() {
		switch {
		case f.Type.ID() == arrow.DICTIONARY:
			opts = append(opts, parquet.WithDictionaryFor(f.Name, true))
		case isText(f.Type) && (first == nil || fewDistinct(first.Column(i))):
			opts = append(opts, parquet.WithDictionaryFor(f.Name, true))
			dictText = append(dictText, i)
		case deltaEncoded(f.Type):
			opts = append(opts, parquet.WithEncodingFor(f.Name, parquet.Encodings.DeltaBinaryPacked))
		}
	}
	return parquet.NewWriterProperties(opts...), pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema(), pqarrow.WithAllocator(mem)), dictText
}

// deltaEncoded reports whether a column of type t is written with
// DELTA_BINARY_PACKED: integers, dates and times, which in logs and
// metrics are mostly ids and instants that grow by small steps. Plain,
// their eight bytes a row are what zstd spends most of a write on and
// compresses least (a second-by-second timestamp column: 80 MB plain,
// 62 MB compressed); as deltas they take a few bits a row, and every
// reader of Parquet decodes them.
func deltaEncoded(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT32, arrow.INT64, arrow.DATE32, arrow.TIMESTAMP, arrow.TIME32, arrow.TIME64, arrow.DURATION:
		return true
	}
	return false
}

// fewDistinct reports whether at most half of the first values of a text
// column are distinct.
func fewDistinct(a arrow.Array) bool {
	n := min(a.Len(), dictionarySample)
	seen := make(map[string]struct{}, 64)
	values := 0
	for i := range n {
		if a.IsNull(i) {
			continue
		}
		values++
		seen[valueText(a, i)] = struct{}{}
		if len(seen) > n/2 {
			return false
		}
	}
	return len(seen) <= max(values/2, 1)
}

// valueText returns a text value without copying where the type allows.
func valueText(a arrow.Array, i int) string {
	switch a := a.(type) {
	case *array.String:
		return a.Value(i)
	case *array.LargeString:
		return a.Value(i)
	case *array.Binary:
		return string(a.Value(i))
	case *array.LargeBinary:
		return string(a.Value(i))
	}
	return a.ValueStr(i)
}

func (s *parquetSink) open(first arrow.Record) error {
	props, aprops, dictText := parquetProps(s.schema, first)
	schema := s.schema
	if s.dicts = newTextDicts(s.schema, dictText); s.dicts != nil {
		// The writer takes those columns as dictionaries; the file says
		// they are text, as they are.
		schema = s.dicts.schema
		aprops = pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(memory.DefaultAllocator))
	}
	// Hide w's Close: the Parquet writer would close it.
	fw, err := pqarrow.NewFileWriter(schema, writerOnly{s.w}, props, aprops)
	if err != nil {
		return fmt.Errorf("parquet: %v", err)
	}
	if s.dicts != nil {
		if err := fw.AppendKeyValueMetadata(arrowSchemaKey, storedSchema(s.schema)); err != nil {
			return fmt.Errorf("parquet: %v", err)
		}
	}
	s.fw = fw
	return nil
}

func (s *parquetSink) Write(rec arrow.Record) error {
	if s.closed {
		return errClosed
	}
	if rec.NumRows() == 0 {
		return nil
	}
	if s.fw == nil {
		if err := s.open(rec); err != nil {
			return err
		}
	}
	if s.dicts != nil {
		enc, grew, err := s.dicts.encode(rec)
		if err != nil {
			return fmt.Errorf("parquet: %v", err)
		}
		defer enc.Release()
		rec = enc
		if n, err := s.fw.RowGroupNumRows(); grew && err == nil && n > 0 {
			if err := s.fw.NewBufferedRowGroupChecked(); err != nil {
				return fmt.Errorf("parquet: %v", err)
			}
		}
	}
	if err := s.fw.WriteBuffered(rec); err != nil {
		return fmt.Errorf("parquet: %v", err)
	}
	return nil
}

func (s *parquetSink) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	if s.fw == nil {
		if err := s.open(nil); err != nil {
			return err
		}
	}
	if err := s.fw.Close(); err != nil {
		return fmt.Errorf("parquet: %v", err)
	}
	return nil
}

// writerOnly hides every method of a writer but Write.
type writerOnly struct{ w io.Writer }

func (w writerOnly) Write(p []byte) (int, error) { return w.w.Write(p) }

// isText reports whether t is a string or binary type (dictionary encoded
// when written).
func isText(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.BINARY, arrow.LARGE_BINARY, arrow.DICTIONARY:
		return true
	}
	return false
}
