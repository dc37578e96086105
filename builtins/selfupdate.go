package builtins

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/lib/selfupdate"
	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
)

// UpdateFromEnv names the build client update takes when not told
// (a build directory or an http(s) URL of one).
const UpdateFromEnv = "FABRIC_UPDATE_FROM"

// clientUpdateModule is the client_update module: the client's own
// binaries replaced by a newer build's (client update), on this machine
// only: no fabric is needed.
func (e *Env) clientUpdateModule() starlark.Value {
	const common = `source is a build directory (as make dist writes it: the binaries,
VERSION, SHA256SUMS) or an http(s) URL of one; default: $` + UpdateFromEnv + `.
dir is the directory of the binaries (default: the running client's).
Returns {dir, from, current_version, available_version, files: [{name,
installed_sha256, available_sha256, action}], changed, previous}; action
is replace, install or unchanged.`
	return doc.Module("client_update", "The client's binaries replaced by a newer build's (client update).", starlark.StringDict{
		"check": doc.Builtin("client_update.check", `check(source=None, dir=None)

Reports what an update would change (it reads only the build's VERSION
and SHA256SUMS), touching nothing. `+common, e.selfUpdate("check")),
		"apply": doc.Builtin("client_update.apply", `apply(source=None, dir=None, timeout=600)

Replaces client and client-data (and fabricd when it is in dir) with the
build's: every file fetched into dir and checked against SHA256SUMS
first, then each renamed into place, the client last; the replaced
binaries are kept in dir/`+selfupdate.PreviousDir+` for rollback(). A failure
leaves the binaries as they were. timeout bounds the fetch (seconds). `+common, e.selfUpdate("apply")),
		"rollback": doc.Builtin("client_update.rollback", `rollback(dir=None)

Puts back the binaries the last update replaced (kept in
dir/`+selfupdate.PreviousDir+`); those it replaces are kept in their turn, so a
second rollback undoes the first. Returns the report as apply does.`, e.selfUpdate("rollback")),
	})
}

// binDir is the directory of the running client, its links resolved.
func binDir() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return "", err
	}
	return filepath.Dir(exe), nil
}

func (e *Env) selfUpdate(op string) builtinFunc {
	return func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var source, dir optString
		timeout := seconds(selfupdate.DefaultTimeout.Seconds())
		pairs := []any{"dir?", &dir}
		switch op {
		case "check":
			pairs = append([]any{"source?", &source}, pairs...)
		case "apply":
			pairs = append([]any{"source?", &source}, append(pairs, "timeout?", &timeout)...)
		}
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, pairs...); err != nil {
			return nil, err
		}
		if timeout <= 0 {
			return nil, fail(b.Name(), fmt.Errorf("timeout must be more than 0 seconds"))
		}
		o := selfupdate.Options{Dir: host.From(thread).Path(string(dir)), From: string(source), Current: e.Version,
			Timeout: time.Duration(float64(timeout) * float64(time.Second))}
		if dir == "" {
			d, err := binDir()
			if err != nil {
				return nil, fail(b.Name(), fmt.Errorf("the client's own path: %v", err))
			}
			o.Dir = d
		}
		if o.From == "" {
			o.From = os.Getenv(UpdateFromEnv)
		}
		if o.From != "" && !isURL(o.From) {
			o.From = host.From(thread).Path(o.From)
		}
		var rep selfupdate.Report
		var err error
		ctx := host.Context(thread)
		switch op {
		case "check":
			rep, err = selfupdate.Check(ctx, o)
		case "apply":
			rep, err = selfupdate.Update(ctx, o)
		default:
			rep, err = selfupdate.Rollback(o)
		}
		return result(b, rep, err)
	}
}

// isURL reports whether s names a build by a URL rather than a path.
func isURL(s string) bool { return strings.Contains(s, "://") }
