package lazy

import (
	"context"
	"os"

	"github.com/fabricops/fabric/fabric/lib/frame"
)

// File is the input of a local file. A Parquet file answers Meta from its
// footer and takes the scan (columns, row groups); the other formats are
// read whole, batch by batch.
type File struct {
	Path   string
	Format frame.Format // Auto: from the extension
}

func (f File) format() (frame.Format, error) {
	format, _, err := frame.Detect(f.Path, f.Format)
	return format, err
}

// Meta reads a Parquet file's footer; other formats tell nothing before a
// read.
func (f File) Meta(ctx context.Context) (Meta, error) {
	format, err := f.format()
	if err != nil {
		return Meta{}, err
	}
	if format != frame.Parquet {
		return Meta{Rows: -1}, nil
	}
	fh, err := os.Open(f.Path)
	if err != nil {
		return Meta{}, err
	}
	defer fh.Close()
	s, n, err := frame.ParquetMeta(fh, f.Path)
	if err != nil {
		return Meta{}, err
	}
	return Meta{Columns: frame.DTypes(s), Rows: n}, nil
}

// Open opens the file, pushing scan into a Parquet file.
func (f File) Open(ctx context.Context, scan frame.Scan) (frame.Source, error) {
	format, err := f.format()
	if err != nil {
		return nil, err
	}
	if format != frame.Parquet {
		return frame.Open(f.Path, format)
	}
	fh, err := os.Open(f.Path)
	if err != nil {
		return nil, err
	}
	src, err := frame.OpenParquet(fh, f.Path, scan)
	if err != nil {
		fh.Close()
		return nil, err
	}
	return closing{src, fh.Close}, nil
}

// closing is a Source that releases something more when closed.
type closing struct {
	frame.Source
	also func() error
}

func (c closing) Close() error {
	err := c.Source.Close()
	if aerr := c.also(); err == nil {
		err = aerr
	}
	return err
}
