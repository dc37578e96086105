package tenant

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/store"
)

// ObjectKey is an object's record key: its folder and name.
func ObjectKey(folder, name string) string {
	return store.Key(CleanFolder(folder)) + "/" + store.Key(name)
}

// CleanFolder normalizes a folder name: no leading or trailing slashes.
func CleanFolder(folder string) string { return strings.Trim(path.Clean("/"+folder), "/") }

// FileType is the file type recorded for a name: its extension, lower case.
func FileType(name string) string {
	ext := strings.ToLower(strings.TrimPrefix(path.Ext(name), "."))
	if ext == "" {
		return "data"
	}
	return ext
}

// NewToken returns 8 random hex digits, used to name stored files.
func NewToken() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// ErrExists is returned when adding an object that exists without
// overwriting.
var ErrExists = errors.New("exists")

// AddObject stores r as the object folder/name. An existing object is
// replaced only with overwrite, and only once the new content is stored.
func (t *Data) AddObject(ctx context.Context, folder, name, descr string, r io.Reader, overwrite bool) (api.Object, error) {
	folder = CleanFolder(folder)
	if name == "" || strings.Contains(name, "/") {
		return api.Object{}, fmt.Errorf("invalid object name %q (no slashes)", name)
	}
	s, err := t.Store(ctx)
	if err != nil {
		return api.Object{}, err
	}
	key := ObjectKey(folder, name)
	var old api.Object
	rev, err := s.Get(ctx, api.ObjectRecordsBucket, key, &old)
	switch {
	case err == nil && !overwrite:
		return api.Object{}, fmt.Errorf("object %q %w in folder %q (overwrite replaces it)", name, ErrExists, folder)
	case err != nil && !errors.Is(err, store.ErrNotFound):
		return api.Object{}, err
	}
	obj := api.Object{Name: name, Folder: folder, Description: descr, FileType: FileType(name),
		DataPath: path.Join(folder, NewToken()+"-"+name+".data")}
	if obj.FileSize, err = s.PutBlob(ctx, obj.DataPath, r); err != nil {
		return api.Object{}, err
	}
	obj.SavedTime = api.Timestamp(time.Now())
	if err := s.Put(ctx, api.ObjectRecordsBucket, key, obj, rev); err != nil {
		_ = s.DeleteBlob(ctx, obj.DataPath)
		return api.Object{}, err
	}
	if rev > 0 && old.DataPath != obj.DataPath {
		_ = s.DeleteBlob(ctx, old.DataPath)
	}
	return obj, nil
}

// Object returns an object's record.
func (t *Data) Object(ctx context.Context, folder, name string) (api.Object, error) {
	var obj api.Object
	s, err := t.Store(ctx)
	if err != nil {
		return obj, err
	}
	if _, err := s.Get(ctx, api.ObjectRecordsBucket, ObjectKey(folder, name), &obj); errors.Is(err, store.ErrNotFound) {
		return obj, notFound(fmt.Sprintf("no object %q in folder %q", name, CleanFolder(folder)))
	} else if err != nil {
		return obj, err
	}
	return obj, nil
}

// OpenObject opens an object's content; the caller closes it.
func (t *Data) OpenObject(ctx context.Context, folder, name string) (io.ReadCloser, api.Object, error) {
	obj, err := t.Object(ctx, folder, name)
	if err != nil {
		return nil, obj, err
	}
	s, _ := t.Store(ctx)
	r, _, err := s.GetBlob(ctx, obj.DataPath)
	if errors.Is(err, store.ErrNotFound) {
		return nil, obj, fmt.Errorf("object %q in folder %q has lost its data file %s", name, obj.Folder, obj.DataPath)
	}
	return r, obj, err
}

// DeleteObject removes an object's record and data.
func (t *Data) DeleteObject(ctx context.Context, folder, name string) error {
	obj, err := t.Object(ctx, folder, name)
	if err != nil {
		return err
	}
	s, _ := t.Store(ctx)
	if err := s.Delete(ctx, api.ObjectRecordsBucket, ObjectKey(folder, name)); err != nil {
		return err
	}
	return s.DeleteBlob(ctx, obj.DataPath)
}

// Objects lists the objects, of one folder when folder is not empty.
func (t *Data) Objects(ctx context.Context, folder string) ([]api.Object, error) {
	all, err := listOf[api.Object](ctx, t, api.ObjectRecordsBucket)
	folder = CleanFolder(folder)
	if err != nil || folder == "" {
		return all, err
	}
	out := []api.Object{}
	for _, o := range all {
		if o.Folder == folder {
			out = append(out, o)
		}
	}
	return out, nil
}

// notFoundError names what is missing and is store.ErrNotFound.
type notFoundError struct{ msg string }

func (e notFoundError) Error() string { return e.msg }

func (e notFoundError) Unwrap() error { return store.ErrNotFound }

// notFound is the error for a record that is not there.
func notFound(msg string) error { return notFoundError{msg} }

// DefaultBucket names the tenant's own objects in BUCKET/PATH entries
// (copy-to-objstore): PATH is then FOLDER/NAME.
const DefaultBucket = "default"

// BucketObjectSize returns the size of object in bucket: with
// DefaultBucket the tenant's object FOLDER/NAME, otherwise the blob object
// of the named object-store bucket. A missing one is store.ErrNotFound.
func (t *Data) BucketObjectSize(ctx context.Context, bucket, object string) (int64, error) {
	if bucket == DefaultBucket {
		obj, err := t.Object(ctx, path.Dir(object), path.Base(object))
		return obj.FileSize, err
	}
	st, err := t.bucket(ctx, bucket)
	if err != nil {
		return 0, err
	}
	return st.BlobSize(ctx, object)
}

// PutBucketObject stores r as object in bucket (see BucketObjectSize),
// replacing what is there once the new content is complete.
func (t *Data) PutBucketObject(ctx context.Context, bucket, object string, r io.Reader) error {
	if bucket == DefaultBucket {
		_, err := t.AddObject(ctx, path.Dir(object), path.Base(object), "", r, true)
		return err
	}
	st, err := t.bucket(ctx, bucket)
	if err != nil {
		return err
	}
	_, err = st.PutBlob(ctx, object, r)
	return err
}

// bucket opens a named object-store bucket of the tenant.
func (t *Data) bucket(ctx context.Context, name string) (*store.Store, error) {
	s, err := t.Store(ctx)
	if err != nil {
		return nil, err
	}
	return s.Bucket(ctx, name)
}
