package frame

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// parquetSource reads a Parquet file's row groups as record batches.
type parquetSource struct {
	name string
	pf   *file.Reader
	rr   pqarrow.RecordReader
	err  error
}

func newParquetSource(r io.Reader, name string, o options) (*parquetSource, error) {
	ras, ok := r.(parquet.ReaderAtSeeker)
	if !ok {
		data, err := io.ReadAll(r)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		ras = bytes.NewReader(data)
	}
	pf, err := file.NewParquetReader(ras)
	if err != nil {
		return nil, fmt.Errorf("%s: not a Parquet file: %v", name, err)
	}
	mem := memory.DefaultAllocator
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: int64(o.batch), Parallel: true}, mem)
	if err != nil {
		pf.Close()
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		pf.Close()
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return &parquetSource{name: name, pf: pf, rr: rr}, nil
}

func (s *parquetSource) Schema() *arrow.Schema { return s.rr.Schema() }

func (s *parquetSource) Next() (arrow.Record, error) {
	if s.err != nil {
		return nil, s.err
	}
	for s.rr.Next() {
		rec := s.rr.RecordBatch()
		if rec.NumRows() == 0 {
			continue
		}
		rec.Retain()
		return rec, nil
	}
	s.err = io.EOF
	if err := s.rr.Err(); err != nil && !errors.Is(err, io.EOF) {
		s.err = fmt.Errorf("%s: %v", s.name, err)
	}
	return nil, s.err
}

func (s *parquetSource) Close() error {
	if s.rr != nil {
		s.rr.Release()
		s.rr = nil
		s.pf.Close()
	}
	if s.err == nil {
		s.err = errors.New("source is closed")
	}
	return nil
}

// rowGroupRows is the number of rows per Parquet row group.
const rowGroupRows = 4 * DefaultBatchSize

// parquetSink writes batches as zstd-compressed Parquet, buffering up to
// rowGroupRows rows per row group.
type parquetSink struct {
	fw     *pqarrow.FileWriter
	closed bool
}

func newParquetSink(w io.Writer, schema *arrow.Schema) (*parquetSink, error) {
	mem := memory.DefaultAllocator
	opts := []parquet.WriterProperty{
		parquet.WithAllocator(mem),
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithCompressionLevel(1),
		parquet.WithMaxRowGroupLength(rowGroupRows),
		// Dictionaries pay for text (hosts, states, regions: a few
		// distinct values stored once, compared once); numbers and times
		// are mostly distinct, and hashing each only to fall back to plain
		// encoding costs a third of the write.
		parquet.WithDictionaryDefault(false),
		// A dictionary that outgrows this falls back to plain encoding:
		// low-cardinality columns keep theirs, unique ones stop paying for
		// a large hash table early.
		parquet.WithDictionaryPageSizeLimit(256 << 10),
	}
	for _, f := range schema.Fields() {
		if isText(f.Type) {
			opts = append(opts, parquet.WithDictionaryFor(f.Name, true))
		}
	}
	props := parquet.NewWriterProperties(opts...)
	aprops := pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema(), pqarrow.WithAllocator(mem))
	// Hide w's Close: the Parquet writer would close it.
	fw, err := pqarrow.NewFileWriter(schema, writerOnly{w}, props, aprops)
	if err != nil {
		return nil, fmt.Errorf("parquet: %v", err)
	}
	return &parquetSink{fw: fw}, nil
}

func (s *parquetSink) Write(rec arrow.Record) error {
	if s.closed {
		return errClosed
	}
	if rec.NumRows() == 0 {
		return nil
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
