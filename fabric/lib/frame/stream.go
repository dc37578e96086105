package frame

import (
	"bufio"
	"errors"
	"fmt"
	"github.com/fabricops/fabric/fabric/lib/safefile"
	"io"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
)

// Source streams the record batches of a table.
type Source interface {
	// Schema returns the columns of every batch.
	Schema() *arrow.Schema
	// Next returns the next batch, or io.EOF after the last. The caller
	// releases each batch.
	Next() (arrow.Record, error)
	// Close releases the source's resources (and closes its file).
	Close() error
}

// Sink writes record batches to a file.
type Sink interface {
	// Write writes one batch; the caller keeps its reference.
	Write(arrow.Record) error
	// Close flushes what is buffered (a Parquet footer, an Excel
	// workbook, a compressor). It does not close the underlying writer.
	Close() error
}

// WithCloser returns src that also runs also when closed (after closing
// src): a temporary file to remove, a reader to close.
func WithCloser(src Source, also func() error) Source { return closing{src, also} }

type closing struct {
	Source
	also func() error
}

func (c closing) Filtered() bool { return Filtered(c.Source) }

// Filtered reports whether src applied its scan's Where (a Parquet scan
// does; other sources ignore it, and their reader filters).
func Filtered(src Source) bool {
	f, ok := src.(interface{ Filtered() bool })
	return ok && f.Filtered()
}

func (c closing) Close() error {
	err := c.Source.Close()
	if aerr := c.also(); err == nil {
		err = aerr
	}
	return err
}

// fileSource is a Source that also closes its file and decompressor.
type fileSource struct {
	Source
	closers []func()
}

func (s *fileSource) Close() error {
	err := s.Source.Close()
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	s.closers = nil
	return err
}

// Open opens a file as a Source. f may be Auto, to tell the format from
// the extension (which also tells the compression, as in "sales.csv.gz").
// Errors name the file.
func Open(path string, f Format, opts ...Option) (Source, error) {
	format, _, err := Detect(path, f)
	if err != nil {
		return nil, err
	}
	if format == ORC {
		return nil, fmt.Errorf("%s: %w", path, errORC)
	}
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return OpenFile(file, path, format, opts...)
}

// OpenFile is Open for a file the caller opened (for instance inside an
// os.Root): the source owns file and closes it. f may be Auto, told from
// name's extension.
func OpenFile(file *os.File, name string, f Format, opts ...Option) (Source, error) {
	path := name
	format, comp, err := Detect(path, f)
	if err != nil {
		file.Close()
		return nil, err
	}
	if format == ORC {
		file.Close()
		return nil, fmt.Errorf("%s: %w", path, errORC)
	}
	o := makeOptions(opts)
	if st, err := file.Stat(); err == nil && st.IsDir() {
		file.Close()
		return nil, fmt.Errorf("%s: is a directory", path)
	}
	var src Source
	closers := []func(){func() { file.Close() }}
	switch format {
	case Parquet:
		src, err = newParquetSource(file, path, o)
	case XLSX:
		src, err = newXLSXSource(file, path, o)
	case XLS:
		src, err = newXLSSource(file, path, o)
	default:
		var more []func()
		src, more, err = openText(file, path, format, comp, o)
		closers = append(closers, more...)
	}
	if err != nil {
		file.Close()
		return nil, err
	}
	return checkSourceWidth(&fileSource{Source: src, closers: closers}, path)
}

// openText opens CSV or JSON text, decompressing it.
func openText(r io.Reader, name string, format Format, comp Compression, o options) (Source, []func(), error) {
	dr, closeDecomp, err := decompress(r, comp)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	var src Source
	switch format {
	case CSV:
		src, err = newCSVSource(dr, name, o)
	case JSON, JSONL:
		src, err = newJSONSource(bufio.NewReaderSize(dr, 1<<16), name, format == JSONL, o)
	default:
		err = fmt.Errorf("%s: cannot read format %q", name, format)
	}
	if err != nil {
		closeDecomp()
		return nil, nil, err
	}
	return src, []func(){closeDecomp}, nil
}

// OpenReader reads a table from r in format f (not Auto) compressed with c.
// Parquet needs random access: when r is not an io.ReaderAt and io.Seeker
// it is read into memory first. Errors are prefixed with the format name.
func OpenReader(r io.Reader, f Format, c Compression, opts ...Option) (Source, error) {
	format, err := ParseFormat(string(f))
	if err != nil {
		return nil, err
	}
	o := makeOptions(opts)
	name := string(format)
	switch format {
	case Auto:
		return nil, fmt.Errorf("OpenReader needs a format: csv, json, jsonl, parquet or xlsx")
	case ORC:
		return nil, errORC
	case Parquet, XLSX, XLS:
		if c != NoCompression {
			return nil, fmt.Errorf("%s: %s compression applies to csv, json and jsonl only", format, c)
		}
		var src Source
		var err error
		switch format {
		case Parquet:
			src, err = newParquetSource(r, name, o)
		case XLS:
			src, err = newXLSSource(r, name, o)
		default:
			src, err = newXLSXSource(r, name, o)
		}
		if err != nil {
			return nil, err
		}
		return checkSourceWidth(src, name)
	}
	src, closers, err := openText(r, name, format, c, o)
	if err != nil {
		return nil, err
	}
	return checkSourceWidth(&fileSource{Source: src, closers: closers}, name)
}

// NewSink returns a Sink writing batches of schema to w in format f (not
// Auto), compressed with c (CSV and JSON only). CSV gets a header row,
// JSON an array of records, JSONL one record per line, Parquet zstd
// compressed row groups; Excel is buffered until Close.
func NewSink(w io.Writer, f Format, c Compression, schema *arrow.Schema) (Sink, error) {
	format, err := ParseFormat(string(f))
	if err != nil {
		return nil, err
	}
	if err := checkWidth(string(format), schema.NumFields()); err != nil {
		return nil, err
	}
	switch format {
	case Auto:
		return nil, fmt.Errorf("NewSink needs a format: csv, json, jsonl, parquet or xlsx")
	case ORC:
		return nil, errORC
	case XLS:
		return nil, errXLSWrite
	case Parquet, XLSX:
		if c != NoCompression {
			return nil, fmt.Errorf("%s: %s compression applies to csv, json and jsonl only", format, c)
		}
		if format == Parquet {
			return newParquetSink(w, schema)
		}
		return newXLSXSink(w, schema)
	}
	cw, err := compressWriter(w, c)
	if err != nil {
		return nil, err
	}
	bw := bufio.NewWriterSize(cw, 1<<20)
	var s Sink
	if format == CSV {
		s = newCSVSink(bw, schema)
	} else {
		s = newJSONSink(bw, schema, format == JSONL)
	}
	return &textSink{Sink: s, bw: bw, cw: cw}, nil
}

// textSink flushes the buffer and compressor of a text sink on Close.
type textSink struct {
	Sink
	bw     *bufio.Writer
	cw     io.WriteCloser
	closed bool
}

func (s *textSink) Close() error {
	if s.closed {
		// As the other sinks: closing twice is harmless (the xz
		// writer would fail).
		return nil
	}
	s.closed = true
	err := s.Sink.Close()
	if ferr := s.bw.Flush(); err == nil {
		err = ferr
	}
	if cerr := s.cw.Close(); err == nil {
		err = cerr
	}
	return err
}

// Copy writes every batch of src into dst, releasing each once written,
// and returns what it moved. It closes neither.
func Copy(dst Sink, src Source) (Stats, error) {
	st := Stats{Columns: src.Schema().NumFields(), DTypes: DTypes(src.Schema())}
	for {
		rec, err := src.Next()
		if err == io.EOF {
			return st, nil
		}
		if err != nil {
			return st, err
		}
		st.Rows += rec.NumRows()
		st.MemBytes += recordBytes(rec)
		err = dst.Write(rec)
		rec.Release()
		if err != nil {
			return st, err
		}
	}
}

// Convert streams the file from into the file to, converting formats
// (Auto tells from the extensions). to is written atomically: into a
// temporary file in its directory, renamed over to once complete.
func Convert(from, to string, fromFormat, toFormat Format) (Stats, error) {
	tf, tc, err := Detect(to, toFormat)
	if err != nil {
		return Stats{}, err
	}
	if tf == ORC {
		return Stats{}, fmt.Errorf("%s: %w", to, errORC)
	}
	if tf == XLS {
		return Stats{}, fmt.Errorf("%s: %w", to, errXLSWrite)
	}
	src, err := Open(from, fromFormat)
	if err != nil {
		return Stats{}, err
	}
	defer src.Close()
	var st Stats
	err = safefile.Write(to, func(w io.Writer) error {
		st, err = copyTo(w, tf, tc, src)
		return err
	})
	return st, err
}

// copyTo writes every batch of src to w in format f with compression c
// (through NewSink and Copy) and closes the sink.
func copyTo(w io.Writer, f Format, c Compression, src Source) (Stats, error) {
	sink, err := NewSink(w, f, c, src.Schema())
	if err != nil {
		return Stats{}, err
	}
	st, err := Copy(sink, src)
	if cerr := sink.Close(); err == nil {
		err = cerr
	}
	return st, err
}

// CSVToParquet converts a CSV file (compressed or not) to Parquet,
// streaming it in batches.
func CSVToParquet(from, to string) (Stats, error) {
	return Convert(from, to, CSV, Parquet)
}

// errClosed is returned by writes to a closed sink.
var errClosed = errors.New("sink is closed")
