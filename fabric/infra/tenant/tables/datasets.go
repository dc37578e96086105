package tables

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/fabricops/fabric/fabric/lib/lazy"
)

// RemoteFormats are the formats a dataset's data file can be stored in.
var RemoteFormats = []frame.Format{fmtParquet, fmtCSV}

// storedData is what writing a source into the store produced.
type storedData struct {
	path  string
	size  int64
	stats frame.Stats
}

// putSource streams src into the store at path in format f. A failure on
// either side (reading the source, storing the blob) fails the whole put,
// and the store keeps no partial data.
func (t *Data) putSource(ctx context.Context, path string, src frame.Source, f frame.Format) (storedData, error) {
	s, err := t.Store(ctx)
	if err != nil {
		return storedData{}, err
	}
	pr, pw := io.Pipe()
	var stats frame.Stats
	copied := make(chan error, 1)
	go func() {
		sink, err := frame.NewSink(pw, f, "", src.Schema())
		if err == nil {
			stats, err = frame.Copy(sink, src)
			if cerr := sink.Close(); err == nil {
				err = cerr
			}
		}
		pw.CloseWithError(err)
		copied <- err
	}()
	// Ctrl-C unblocks a put waiting for the next converted batch.
	stop := context.AfterFunc(ctx, func() { pr.CloseWithError(context.Cause(ctx)) })
	defer stop()
	size, putErr := s.PutBlob(ctx, path, pr)
	pr.CloseWithError(putErr) // unblocks the writer when the put failed
	if err := <-copied; err != nil {
		_ = s.DeleteBlob(ctx, path)
		return storedData{}, err
	}
	if putErr != nil {
		return storedData{}, putErr
	}
	return storedData{path: path, size: size, stats: stats}, nil
}

func dtypeMap(ds []frame.DType) (map[string]string, []string) {
	m := make(map[string]string, len(ds))
	cols := make([]string, 0, len(ds))
	for _, d := range ds {
		m[d.Column] = d.DType
		cols = append(cols, d.Column)
	}
	return m, cols
}

// AddDataset stores src as the dataset name, in the remote format (parquet
// or csv), and returns its record and whether it was new. An existing
// dataset is replaced only once the new data is fully stored.
func (t *Data) AddDataset(ctx context.Context, name, folder string, src frame.Source, remote frame.Format) (api.Dataset, bool, error) {
	if name == "" {
		return api.Dataset{}, false, errors.New("a dataset needs a name")
	}
	if remote != fmtParquet && remote != fmtCSV {
		return api.Dataset{}, false, fmt.Errorf("remote format must be csv or parquet, not %q", remote)
	}
	s, err := t.Store(ctx)
	if err != nil {
		return api.Dataset{}, false, err
	}
	key := store.Key(name)
	var old api.Dataset
	rev, err := s.Get(ctx, api.DatasetsBucket, key, &old)
	created := errors.Is(err, store.ErrNotFound)
	if err != nil && !created {
		return api.Dataset{}, false, err
	}
	data, err := t.putSource(ctx, "datasets/"+key+"/"+tenant.NewToken()+"."+string(remote), src, remote)
	if err != nil {
		return api.Dataset{}, false, err
	}
	dtypes, cols := dtypeMap(data.stats.DTypes)
	rec := api.Dataset{Name: name, Format: string(remote), Datafile: data.path, MemSizeMB: data.stats.MemSizeMB(),
		NumRows: data.stats.Rows, NumColumns: data.stats.Columns, SavedTime: api.Timestamp(time.Now()),
		DTypes: dtypes, Folder: folder, FileSize: data.size, Columns: cols}
	if err := s.Put(ctx, api.DatasetsBucket, key, rec, rev); err != nil {
		_ = s.DeleteBlob(ctx, data.path)
		return api.Dataset{}, false, err
	}
	if !created && old.Datafile != data.path {
		_ = s.DeleteBlob(ctx, old.Datafile)
	}
	return rec, created, nil
}

// OpenDataset opens a dataset's data as a stream of record batches; the
// caller closes it.
func (t *Data) OpenDataset(ctx context.Context, name string) (frame.Source, api.Dataset, error) {
	d, err := t.Dataset(ctx, name)
	if err != nil {
		return nil, d, err
	}
	src, err := t.OpenData(ctx, d.Datafile, frame.Format(d.Format))
	return src, d, err
}

// OpenData opens a stored data file of format f as a stream of record
// batches; the caller closes it.
func (t *Data) OpenData(ctx context.Context, path string, f frame.Format) (frame.Source, error) {
	return t.StoredInput(path, f, lazy.Meta{Rows: -1}).Open(ctx, frame.Scan{})
}

// The formats datasets are stored in.
const (
	fmtParquet = frame.Format("parquet")
	fmtCSV     = frame.Format("csv")
)
