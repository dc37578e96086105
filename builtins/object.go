package builtins

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/fabricops/fabric/fabric/lib/safefile"
	"io"
	"net/http"
	"os"
	"path"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
)

// objectModule is the object module: files kept in the tenant's object
// store under a folder and a name (SPEC 2.7).
func (e *Env) objectModule() starlark.Value {
	return doc.Module("object", "Objects: files in the tenant's object store, by folder and name.", starlark.StringDict{
		"add": doc.Builtin("object.add", `add(name, folder, file, descr="", overwrite=False)

Stores a local file as the object folder/name and returns its record
(name, folder, description, saved_time, data_path, file_type, file_size).
An existing object is replaced only with overwrite=True, and only once the
new content is fully stored.`, e.objectAdd),
		"put": doc.Builtin("object.put", `put(name, folder, content, descr="", overwrite=False)

Stores content (str or bytes) as the object folder/name; returns its record.`, e.objectPut),
		"read": doc.Builtin("object.read", `read(name, folder, binary=False)

Returns an object's content: str, or bytes with binary=True.`, e.objectRead),
		"download": doc.Builtin("object.download", `download(name, folder, path)

Writes an object's content to a local file (atomically) and returns the
path.`, e.objectDownload),
		"delete": doc.Builtin("object.delete", `delete(name, folder)

Deletes an object: its record and its data.`, e.objectDelete),
		"list": doc.Builtin("object.list", `list(folder=None)

Returns the object records, of one folder when given.`, e.objectList),
		"meta": doc.Builtin("object.meta", `meta(name, folder)

Returns an object's record.`, e.objectMeta),
		"copy_to_objstore": doc.Builtin("object.copy_to_objstore", `copy_to_objstore(file, verify=False, force=False)

Uploads the entries of a ZIP file (a local path or an http/https URL)
into the object store. Each entry is BUCKET/PATH; bucket "default" is
the tenant's object store, where PATH's folder and name also become an
object record. An entry whose object exists with the same size is
skipped unless force=True. verify=True only checks. Returns one row per
entry: bucket, object, size, status.`, e.copyToObjstore),
	})
}

func (e *Env) objectAdd(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name, folder, file, descr string
	var overwrite bool
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "folder", &folder, "file", &file, "descr?", &descr, "overwrite?", &overwrite); err != nil {
		return nil, err
	}
	f, err := os.Open(host.From(thread).Path(file))
	if err != nil {
		return nil, fail(b.Name(), trimPathError(err))
	}
	defer f.Close()
	st, _ := f.Stat()
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		p := withProgress(thread, f, "uploading "+path.Base(file), st.Size())
		defer p.Finish()
		return c.AddObject(ctx, folder, name, descr, p, overwrite)
	})
}

func (e *Env) objectPut(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name, folder, descr string
	var content starlark.Value
	var overwrite bool
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "folder", &folder, "content", &content, "descr?", &descr, "overwrite?", &overwrite); err != nil {
		return nil, err
	}
	var data []byte
	switch x := content.(type) {
	case starlark.String:
		data = []byte(x)
	case starlark.Bytes:
		data = []byte(x)
	default:
		return nil, fmt.Errorf("%s: content must be str or bytes, not %s", b.Name(), content.Type())
	}
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		return c.AddObject(ctx, folder, name, descr, bytes.NewReader(data), overwrite)
	})
}

func (e *Env) objectRead(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name, folder string
	var binary bool
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "folder", &folder, "binary?", &binary); err != nil {
		return nil, err
	}
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		r, _, err := c.OpenObject(ctx, folder, name)
		if err != nil {
			return nil, err
		}
		defer r.Close()
		data, err := io.ReadAll(r)
		if err != nil {
			return nil, err
		}
		if binary {
			return starlark.Bytes(data), nil
		}
		return starlark.String(data), nil
	})
}

func (e *Env) objectDownload(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name, folder, to string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "folder", &folder, "path", &to); err != nil {
		return nil, err
	}
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		r, obj, err := c.OpenObject(ctx, folder, name)
		if err != nil {
			return nil, err
		}
		defer r.Close()
		p := withProgress(thread, r, "downloading "+name, obj.FileSize)
		defer p.Finish()
		return to, safefile.WriteFrom(host.From(thread).Path(to), p)
	})
}

func (e *Env) objectDelete(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name, folder string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "folder", &folder); err != nil {
		return nil, err
	}
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		return nil, c.DeleteObject(ctx, folder, name)
	})
}

func (e *Env) objectList(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var folder optString
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "folder?", &folder); err != nil {
		return nil, err
	}
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		return c.Objects(ctx, string(folder))
	})
}

func (e *Env) objectMeta(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name, folder string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "folder", &folder); err != nil {
		return nil, err
	}
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		return c.Object(ctx, folder, name)
	})
}

// copyRow is one entry's result of copy_to_objstore.
type copyRow struct {
	Bucket string `json:"bucket"`
	Object string `json:"object"`
	Size   int64  `json:"size"`
	Status string `json:"status"`
}

func (e *Env) copyToObjstore(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var file string
	var verify, force bool
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "file", &file, "verify?", &verify, "force?", &force); err != nil {
		return nil, err
	}
	zipPath, cleanup, err := localCopy(thread, file)
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	defer cleanup()
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		return nil, fmt.Errorf("%s: %s is not a readable ZIP file: %v", b.Name(), file, err)
	}
	defer zr.Close()
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		rows := []copyRow{}
		for _, f := range zr.File {
			if f.FileInfo().IsDir() {
				continue
			}
			row, err := copyZipEntry(ctx, c, f, verify, force)
			if err != nil {
				return nil, err
			}
			rows = append(rows, row)
		}
		return rows, nil
	})
}

// copyZipEntry uploads the ZIP entry BUCKET/PATH unless an object of the
// same size exists (or force), or with verify only says what it would do.
func copyZipEntry(ctx context.Context, c *client.Client, f *zip.File, verify, force bool) (copyRow, error) {
	bucket, object, ok := strings.Cut(strings.TrimPrefix(f.Name, "/"), "/")
	if !ok || object == "" {
		return copyRow{Object: f.Name, Status: "skipped: not BUCKET/PATH"}, nil
	}
	row := copyRow{Bucket: bucket, Object: object, Size: int64(f.UncompressedSize64)}
	existing, err := c.BucketObjectSize(ctx, bucket, object)
	same := err == nil && existing == row.Size
	switch {
	case same && !force:
		row.Status = "skipped: same size exists"
	case verify && same:
		row.Status = "would upload (forced)"
	case verify && err == nil:
		row.Status = fmt.Sprintf("would replace (size %d differs)", existing)
	case verify:
		row.Status = "would upload"
	default:
		if err := copyEntry(ctx, c, bucket, object, f); err != nil {
			return row, fmt.Errorf("%s: %v", f.Name, err)
		}
		row.Status = "uploaded"
	}
	return row, nil
}

// localCopy returns a local path for file: itself, or for a URL a
// downloaded temporary copy that cleanup removes.
func localCopy(thread *starlark.Thread, file string) (string, func(), error) {
	if !strings.HasPrefix(file, "http://") && !strings.HasPrefix(file, "https://") {
		p := host.From(thread).Path(file)
		if _, err := os.Stat(p); err != nil {
			return "", nil, trimPathError(err)
		}
		return p, func() {}, nil
	}
	body, _, err := httpGet(host.Context(thread), file)
	if err != nil {
		return "", nil, err
	}
	name, err := Spool(thread, body, 0, file, "downloading", "")
	if err != nil {
		return "", nil, err
	}
	return name, func() { os.Remove(name) }, nil
}

// HTTPTimeout bounds connecting to a URL and receiving its headers.
const HTTPTimeout = 30 * time.Second

// httpGet opens a URL for reading, with a clear error when it cannot.
func httpGet(ctx context.Context, url string) (io.ReadCloser, int64, error) {
	client := &http.Client{Transport: &http.Transport{ResponseHeaderTimeout: HTTPTimeout, Proxy: http.ProxyFromEnvironment}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("bad URL %q: %v", url, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("cannot fetch %s: %v", url, unwrapURLError(err))
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, 0, fmt.Errorf("cannot fetch %s: %s", url, resp.Status)
	}
	return resp.Body, resp.ContentLength, nil
}

func unwrapURLError(err error) error {
	if u := errors.Unwrap(err); u != nil {
		return u
	}
	return err
}

// copyEntry uploads one ZIP entry into bucket.
func copyEntry(ctx context.Context, c *client.Client, bucket, object string, f *zip.File) error {
	r, err := f.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	return c.PutBucketObject(ctx, bucket, object, r)
}
