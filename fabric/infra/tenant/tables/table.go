package tables

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/fabricops/fabric/fabric/lib/lazy"
)

// Stored is the lazy input of a data file in the object store (a
// dataset's, a job's output). Its metadata comes from the record that
// points at it; a Parquet file takes the scan (columns, row groups).
type Stored struct {
	t      *Data
	path   string
	format frame.Format
	meta   lazy.Meta
}

// StoredInput returns the input of the data file at path, in format f,
// with what its record says of it (meta.Rows -1 when it says nothing).
func (t *Data) StoredInput(path string, f frame.Format, meta lazy.Meta) *Stored {
	return &Stored{t: t, path: path, format: f, meta: meta}
}

// DatasetTable returns a dataset as a lazy table, and its record.
func (t *Data) DatasetTable(ctx context.Context, name string) (*lazy.Table, api.Dataset, error) {
	d, err := t.Dataset(ctx, name)
	if err != nil {
		return nil, d, err
	}
	cols := make([]frame.DType, len(d.Columns))
	for i, c := range d.Columns {
		cols[i] = frame.DType{Column: c, DType: d.DTypes[c]}
	}
	return lazy.New(t.StoredInput(d.Datafile, frame.Format(d.Format), lazy.Meta{Columns: cols, Rows: d.NumRows})), d, nil
}

// Meta returns what the record says.
func (s *Stored) Meta(context.Context) (lazy.Meta, error) { return s.meta, nil }

// Format returns the format the data is stored in.
func (s *Stored) Format() frame.Format { return s.format }

// Raw opens the stored bytes as they are; the caller closes them.
func (s *Stored) Raw(ctx context.Context) (io.ReadCloser, error) {
	st, err := s.t.Store(ctx)
	if err != nil {
		return nil, err
	}
	r, _, err := st.GetBlob(ctx, s.path)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("the data file %s is missing from the object store", s.path)
	}
	return r, err
}

// Open opens the data, pushing scan into a Parquet file. Parquet needs
// random access: its bytes stream into a temporary file (never held in
// memory, removed when the source closes), and the scan reads each part
// as soon as it has arrived, from the footer on.
func (s *Stored) Open(ctx context.Context, scan frame.Scan) (frame.Source, error) {
	if s.format != fmtParquet {
		r, err := s.Raw(ctx)
		if err != nil {
			return nil, err
		}
		src, err := frame.OpenReader(r, s.format, "")
		if err != nil {
			r.Close()
			return nil, err
		}
		return frame.WithCloser(src, r.Close), nil
	}
	st, err := s.t.Store(ctx)
	if err != nil {
		return nil, err
	}
	// A scan that narrows (columns, row groups, a filter) reads the parts
	// it needs by chunk; a whole read is faster as one download, and so is
	// a narrowing scan whose footer shows it reads most of the file
	// (frame.OpenParquet tells the blob: ReadMost).
	narrow := scan.Columns != nil || scan.Keep != nil || scan.Where != nil
	bf, err := st.OpenBlobFile(ctx, s.path, narrow)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("the data file %s is missing from the object store", s.path)
	}
	if err != nil {
		return nil, err
	}
	src, err := frame.OpenParquet(bf, s.path, scan)
	if err != nil {
		bf.Close()
		return nil, err
	}
	return frame.WithCloser(src, bf.Close), nil
}
