package lazy

import (
	"context"
	"os"
	"sync"

	"github.com/fabricops/fabric/fabric/lib/frame"
)

// File is the input of a local file. A Parquet file answers Meta from its
// footer and takes the scan (columns, row groups); the other formats are
// read whole, batch by batch, and answer Meta from their first batch (the
// one their column types are inferred from), so that a malformed file or
// an unknown column fails at once.
type File struct {
	path   string
	format frame.Format // Auto: from the extension
	once   sync.Once
	meta   Meta
	err    error
}

// NewFile returns the input of the file at path, in format f (Auto: from
// the extension).
func NewFile(path string, f frame.Format) *File { return &File{path: path, format: f} }

func (f *File) detect() (frame.Format, error) {
	format, _, err := frame.Detect(f.path, f.format)
	return format, err
}

// Meta reads a Parquet file's footer, or another file's first batch; once.
func (f *File) Meta(ctx context.Context) (Meta, error) {
	f.once.Do(func() { f.meta, f.err = f.readMeta() })
	return f.meta, f.err
}

func (f *File) readMeta() (Meta, error) {
	format, err := f.detect()
	if err != nil {
		return Meta{}, err
	}
	if format != frame.Parquet {
		src, err := frame.Open(f.path, format)
		if err != nil {
			return Meta{}, err
		}
		defer src.Close()
		return Meta{Columns: frame.DTypes(src.Schema()), Rows: -1}, nil
	}
	fh, err := os.Open(f.path)
	if err != nil {
		return Meta{}, err
	}
	defer fh.Close()
	s, n, err := frame.ParquetMeta(fh, f.path)
	if err != nil {
		return Meta{}, err
	}
	return Meta{Columns: frame.DTypes(s), Rows: n}, nil
}

// Open opens the file, pushing scan into a Parquet file.
func (f *File) Open(ctx context.Context, scan frame.Scan) (frame.Source, error) {
	format, err := f.detect()
	if err != nil {
		return nil, err
	}
	if format != frame.Parquet {
		return frame.Open(f.path, format)
	}
	fh, err := os.Open(f.path)
	if err != nil {
		return nil, err
	}
	src, err := frame.OpenParquet(fh, f.path, scan)
	if err != nil {
		fh.Close()
		return nil, err
	}
	return frame.WithCloser(src, fh.Close), nil
}
