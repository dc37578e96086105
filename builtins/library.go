package builtins

import (
	"context"
	"fmt"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
)

// libraryModule is the library module (SPEC 2.12, 3, 4.11): library files
// in the object store, staged in pods' package directories, loaded by the
// pods when they restart.
func (e *Env) libraryModule() starlark.Value {
	return doc.Module("library", `Libraries: archives of .star modules and data files that bots load with
load("@lib/NAME//path.star", ...). A library is NAME-VERSION.tar.gz or
NAME-VERSION(-BUILD)-PY-ABI-PLATFORM.whl; NAME begins with fabric_ or
site_. install stages a file in each pod's package directory; the pod
loads it when it restarts (README: "Libraries").`, starlark.StringDict{
		"upload": doc.Builtin("library.upload", `upload(file)

Checks a library file (its name, version, size of at most 64 MiB, and its
archive: no links, absolute paths or "..") and stores it in the object
store; returns {package, version, filename, size}.`, e.libraryUpload),
		"files": doc.Builtin("library.files", `files()

Returns the object store's library files, by library and version:
{package, version, filename, size}.`, e.listCall(func(ctx context.Context, c *client.Client) (any, error) {
			return c.LibraryFiles(ctx)
		})),
		"list": doc.Builtin("library.list", `list(pod_type, pod_ids=None, site=None, ql_query=None, wait=30)

Asks the pods of pod_type with one of pod_ids, or at a site the regular
expression site matches, and matching ql_query (a CFXQL filter on the
pod's info) for their libraries; waits at most wait seconds. Returns
{pods: [{pod_id, hostname, site_name, rows: [{package, filename,
objectstore_version, installed_version, status}]}], responded, targeted,
missing}; status is NOT INSTALLED, STAGED, UP TO DATE or PATCH AVAILABLE.`, e.libraryAsk(false)),
		"install": doc.Builtin("library.install", `install(libraries, pod_type, pod_ids=None, site=None, ql_query=None, wait=300)

Stages libraries (names, file names, or "all": each library's newest
file) in the package directory of the pods selected as list selects
them; a pod takes them when it restarts. Returns {pods: [{pod_id,
hostname, install: [{Pod ID, Hostname, Filename, Status, Message}]}],
responded, targeted, missing}.`, e.libraryAsk(true)),
		"delete": doc.Builtin("library.delete", `delete(libraries)

Removes library files (by file name) from the object store and returns
them; the copies staged or installed in pods stay.`, e.libraryDelete),
	})
}

func (e *Env) libraryUpload(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var file string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "file", &file); err != nil {
		return nil, err
	}
	path := host.From(thread).Path(file)
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		f, err := c.LibraryUpload(ctx, path)
		return f, trimPathError(err)
	})
}

func (e *Env) libraryDelete(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var names starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "libraries", &names); err != nil {
		return nil, err
	}
	list, err := stringList(names, "libraries")
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		return c.LibraryDelete(ctx, list)
	})
}

// libraryAsk is list, or install when install is set.
func (e *Env) libraryAsk(install bool) builtinFunc {
	return func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var t api.LibraryTarget
		var libs, ids starlark.Value = starlark.None, starlark.None
		var site, query optString
		wait := seconds(client.LibraryListWait.Seconds())
		var pairs []any
		if install {
			wait = seconds(client.LibraryInstallWait.Seconds())
			pairs = append(pairs, "libraries", &libs)
		}
		pairs = append(pairs, "pod_type", &t.PodType, "pod_ids?", &ids, "site?", &site, "ql_query?", &query, "wait?", &wait)
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, pairs...); err != nil {
			return nil, err
		}
		var err error
		if t.PodIDs, err = stringList(ids, "pod_ids"); err != nil {
			return nil, fail(b.Name(), err)
		}
		t.Site, t.QLQuery = string(site), string(query)
		if len(t.PodIDs) == 0 && t.Site == "" {
			return nil, fail(b.Name(), fmt.Errorf("either pod_ids or site is required"))
		}
		if wait <= 0 || time.Duration(wait*seconds(time.Second)) > client.LibraryMaxWait {
			return nil, fail(b.Name(), fmt.Errorf("wait must be more than 0 and at most %s", client.LibraryMaxWait))
		}
		d := time.Duration(wait * seconds(time.Second))
		var names []string
		if install {
			if names, err = stringList(libs, "libraries"); err != nil {
				return nil, fail(b.Name(), err)
			}
			if len(names) == 0 {
				return nil, fail(b.Name(), fmt.Errorf("no library named"))
			}
		}
		return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
			if install {
				return c.LibraryInstall(ctx, names, t, d)
			}
			return c.LibraryList(ctx, t, d)
		})
	}
}

// stringList reads a list of strings (or one string; None: none) of the
// argument name.
func stringList(v starlark.Value, name string) ([]string, error) {
	switch x := v.(type) {
	case starlark.NoneType:
		return nil, nil
	case starlark.String:
		return []string{string(x)}, nil
	case starlark.Iterable:
		var out []string
		it := x.Iterate()
		defer it.Done()
		var el starlark.Value
		for it.Next(&el) {
			s, ok := starlark.AsString(el)
			if !ok {
				return nil, fmt.Errorf("%s: got a %s, want strings", name, el.Type())
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s: got %s, want a list of strings", name, v.Type())
}
