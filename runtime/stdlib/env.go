package stdlib

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"os"
	"sort"
	"strings"

	"github.com/fabricops/fabric/runtime/doc"
	"go.starlark.net/starlark"
)

func envModule() starlark.Value {
	return doc.Module("env", `The process's environment variables.`, starlark.StringDict{
		"get": doc.Builtin("env.get", `get(name, default=None)

Returns the value of the environment variable name, or default when it is
not set.`, envGet),
		"set": doc.Builtin("env.set", `set(name, value)

Sets the environment variable name to the str value, for this process and
the commands it starts.`, envSet),
		"unset": doc.Builtin("env.unset", `unset(name)

Removes the environment variable name; a missing one is not an error.`, envUnset),
		"names": doc.Builtin("env.names", `names()

Returns the sorted names of the environment variables.`, envNames),
		"environ": doc.Builtin("env.environ", `environ()

Returns a new dict of every environment variable and its value, sorted by
name. Changing the dict does not change the environment.`, envEnviron),
	})
}

func envGet(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		name string
		def  starlark.Value = starlark.None
	)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "default?", &def); err != nil {
		return nil, err
	}
	if v, ok := os.LookupEnv(name); ok {
		return starlark.String(v), nil
	}
	return def, nil
}

func envSet(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name, value string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "value", &value); err != nil {
		return nil, err
	}
	if name == "" || strings.ContainsAny(name, "=\x00") {
		return nil, fmt.Errorf("%s: invalid variable name %q", b.Name(), name)
	}
	if err := os.Setenv(name, value); err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name(), err)
	}
	return starlark.None, nil
}

func envUnset(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name); err != nil {
		return nil, err
	}
	if err := os.Unsetenv(name); err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name(), err)
	}
	return starlark.None, nil
}

// environ returns the environment as sorted names and their values.
func environ() ([]string, map[string]string) {
	vals := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if k == "" { // Windows' "=C:" entries
			continue
		}
		vals[k] = v
	}
	names := make([]string, 0, len(vals))
	for k := range vals {
		names = append(names, k)
	}
	sort.Strings(names)
	return names, vals
}

func envNames(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	names, _ := environ()
	out := make([]starlark.Value, len(names))
	for i, n := range names {
		out[i] = starlark.String(n)
	}
	return starlark.NewList(out), nil
}

func envEnviron(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	names, vals := environ()
	d := starlark.NewDict(len(names))
	for _, n := range names {
		if err := d.SetKey(starlark.String(n), starlark.String(vals[n])); err != nil {
			return nil, err
		}
	}
	return d, nil
}

func hashModule() starlark.Value {
	return doc.Module("hash", `Message digests, as lowercase hexadecimal strings.`, starlark.StringDict{
		"sha256": doc.Builtin("hash.sha256", `sha256(data)

Returns the SHA-256 digest of data (str or bytes) in lowercase hex.`, hashFunc(sha256.New)),
		"sha1": doc.Builtin("hash.sha1", `sha1(data)

Returns the SHA-1 digest of data (str or bytes) in lowercase hex. SHA-1 is
broken for security purposes; use it only to match existing digests.`, hashFunc(sha1.New)),
		"md5": doc.Builtin("hash.md5", `md5(data)

Returns the MD5 digest of data (str or bytes) in lowercase hex. MD5 is
broken for security purposes; use it only to match existing digests.`, hashFunc(md5.New)),
	})
}

func hashFunc(newHash func() hash.Hash) func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
	return func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var data starlark.Value
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, "data", &data); err != nil {
			return nil, err
		}
		text, err := textArg(b.Name(), "data", data)
		if err != nil {
			return nil, err
		}
		h := newHash()
		h.Write(text)
		return starlark.String(hex.EncodeToString(h.Sum(nil))), nil
	}
}
