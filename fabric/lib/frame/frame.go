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
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// Format names a file format.
type Format string

// The formats Open, NewSink, Read and Write know. Auto means "tell from the
// file name's extension".
const (
	Auto    Format = "auto"
	CSV     Format = "csv"
	JSON    Format = "json"
	JSONL   Format = "jsonl"
	Parquet Format = "parquet"
	XLSX    Format = "xlsx"
	ORC     Format = "orc"
)

// Compression names the compression of a CSV or JSON file.
type Compression string

// The compressions, told from a trailing extension (.gz, .bz2, .xz, .zst).
const (
	NoCompression Compression = ""
	Gzip          Compression = "gzip"
	Bzip2         Compression = "bzip2"
	XZ            Compression = "xz"
	Zstd          Compression = "zstd"
)

// errORC is the one answer for ORC files: no Go ORC reader is available.
var errORC = fmt.Errorf("ORC is not supported: convert the file to Parquet or CSV")

const validFormats = "auto, csv, json, jsonl, parquet, xlsx (or excel), orc"

// ParseFormat parses a format name: auto, csv, json, jsonl (or ndjson),
// parquet, xlsx (or excel, xls) and orc. The empty string is auto.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return Auto, nil
	case "csv":
		return CSV, nil
	case "json":
		return JSON, nil
	case "jsonl", "ndjson":
		return JSONL, nil
	case "parquet", "pq":
		return Parquet, nil
	case "xlsx", "excel", "xls":
		return XLSX, nil
	case "orc":
		return ORC, nil
	}
	return "", fmt.Errorf("unknown format %q: want one of %s", s, validFormats)
}

// compressionExts are the extensions that tell a compression.
var compressionExts = []struct {
	ext string
	c   Compression
}{{".gz", Gzip}, {".gzip", Gzip}, {".bz2", Bzip2}, {".xz", XZ}, {".zst", Zstd}, {".zstd", Zstd}}

// Detect resolves the format of path: f itself unless it is Auto (or
// empty), in which case the extension tells. It also returns the
// compression told by a trailing .gz, .bz2, .xz, .zst or .zstd, which only
// CSV and JSON files may have.
func Detect(path string, f Format) (Format, Compression, error) {
	base := strings.ToLower(filepath.Base(path))
	c := NoCompression
	for _, e := range compressionExts {
		if b, ok := strings.CutSuffix(base, e.ext); ok {
			c, base = e.c, b
			break
		}
	}
	if f == "" {
		f = Auto
	}
	if f != Auto {
		pf, err := ParseFormat(string(f))
		if err != nil {
			return "", "", err
		}
		f = pf
	} else {
		switch filepath.Ext(base) {
		case ".csv":
			f = CSV
		case ".json":
			f = JSON
		case ".jsonl", ".ndjson":
			f = JSONL
		case ".parquet", ".pq", ".parq":
			f = Parquet
		case ".xlsx", ".xlsm", ".xls":
			f = XLSX
		case ".orc":
			f = ORC
		default:
			return "", "", fmt.Errorf("cannot tell the format of %q from its extension: give a format (csv, json, jsonl, parquet, xlsx)", filepath.Base(path))
		}
	}
	if c != NoCompression && f != CSV && f != JSON && f != JSONL {
		return "", "", fmt.Errorf("%s: %s compression applies to csv, json and jsonl files only", filepath.Base(path), c)
	}
	return f, c, nil
}

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
