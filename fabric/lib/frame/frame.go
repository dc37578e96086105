// Package frame reads, writes and converts tables of data held as Apache
// Arrow record batches: CSV, JSON, JSON lines, Parquet and Excel files,
// optionally compressed (gzip, bzip2, xz, zstd), streamed batch by batch
// or loaded whole into an immutable Frame.
//
// Streaming goes through a Source (record batches read from a file) and a
// Sink (record batches written to one); Copy and Convert join the two
// without ever holding the whole file in memory. Read loads a file into a
// Frame, which offers the small table operations the shell needs (head,
// tail, select, sort, take) and a readable rendering.
//
// Column types are inferred the way pandas would name them (see DType):
// CSV columns are int64, float64, bool, date or timestamp (ISO 8601) when
// every value of the first batch (WithBatchSize rows, 65,536 by default)
// parses as such, and string otherwise. A later value that does not fit
// the inferred type stops the read with an error naming its line and
// column. Empty CSV fields are nulls. Text that is not valid UTF-8 has its
// invalid bytes replaced with U+FFFD, as Arrow strings are UTF-8.
package frame

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/fabricops/fabric/fabric/lib/fileformat"
)

// errORC is the one answer for ORC files: no Go ORC reader is available.
var errORC = fmt.Errorf("ORC is not supported: convert the file to Parquet or CSV")

// errXLSWrite is the answer to writing a legacy .xls workbook: it is read
// only.
var errXLSWrite = fmt.Errorf("legacy .xls workbooks are read, not written: write xlsx")

// Format names a file format (see fileformat.Format).
type Format = fileformat.Format

// Compression names the compression of a CSV or JSON file.
type Compression = fileformat.Compression

// The formats Open, NewSink, Read and Write know, and the compressions.
const (
	Auto          = fileformat.Auto
	CSV           = fileformat.CSV
	JSON          = fileformat.JSON
	JSONL         = fileformat.JSONL
	Parquet       = fileformat.Parquet
	XLSX          = fileformat.XLSX
	XLS           = fileformat.XLS
	ORC           = fileformat.ORC
	NoCompression = fileformat.NoCompression
	Gzip          = fileformat.Gzip
	Bzip2         = fileformat.Bzip2
	XZ            = fileformat.XZ
	Zstd          = fileformat.Zstd
)

// ParseFormat parses a format name (see fileformat.ParseFormat).
func ParseFormat(s string) (Format, error) { return fileformat.ParseFormat(s) }

// Detect resolves the format and compression of path (see
// fileformat.Detect).
func Detect(path string, f Format) (Format, Compression, error) { return fileformat.Detect(path, f) }

// DType is a column's name and its type, named as pandas names them:
// int64, int32, int16, int8, uint64, uint32, uint16, uint8, float64,
// float32, bool, datetime64[ns] (timestamps and dates), category
// (dictionary-encoded columns) and object (strings, binary, lists,
// structs and anything else).
type DType struct {
	Column string
	DType  string
}

// DTypeOf returns the pandas name of an Arrow type.
func DTypeOf(t arrow.DataType) string {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
		return t.Name()
	case arrow.BOOL:
		return "bool"
	case arrow.TIMESTAMP, arrow.DATE32, arrow.DATE64:
		return "datetime64[ns]"
	case arrow.DURATION:
		return "timedelta64[ns]"
	case arrow.DICTIONARY:
		return "category"
	}
	return "object"
}

// DTypes lists the dtypes of a schema's fields.
func DTypes(s *arrow.Schema) []DType {
	out := make([]DType, s.NumFields())
	for i, f := range s.Fields() {
		out[i] = DType{Column: f.Name, DType: DTypeOf(f.Type)}
	}
	return out
}

// Stats describes what a Copy or Convert moved.
type Stats struct {
	Rows    int64
	Columns int
	DTypes  []DType
	// MemBytes is the in-memory size of the data: the sum of the sizes of
	// the Arrow buffers of every batch.
	MemBytes int64
}

// MemSizeMB returns MemBytes in MiB, rounded to 6 decimal places.
func (s Stats) MemSizeMB() float64 { return mib(s.MemBytes) }

func mib(n int64) float64 {
	return math.Round(float64(n)/1024/1024*1e6) / 1e6
}

// DefaultBatchSize is the number of rows of the batches a Source reads,
// and of the sample CSV and JSON column types are inferred from.
const DefaultBatchSize = 64 * 1024

type options struct {
	batch int
}

// Option configures Open and OpenReader.
type Option func(*options)

// WithBatchSize sets the number of rows per batch (default 65,536). It is
// also the number of rows column types are inferred from.
func WithBatchSize(rows int) Option {
	return func(o *options) {
		if rows > 0 {
			o.batch = rows
		}
	}
}

func makeOptions(opts []Option) options {
	o := options{batch: DefaultBatchSize}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}
