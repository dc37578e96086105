// Package runtime is the Starlark host of the shell. It knows nothing of the
// fabric: it builds threads with the shell's dialect and predeclared
// modules, resolves load() against the bundled scripts and the disk, caches
// loaded modules and reports load cycles, and renders errors.
package runtime

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/fabricops/fabric/runtime/command"
	"github.com/fabricops/fabric/runtime/diskcache"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Dialect is the shell's permissive Starlark dialect: while loops, top-level
// control flow, sets, recursion and global reassignment are allowed.
var Dialect = &syntax.FileOptions{
	Set:             true,
	While:           true,
	TopLevelControl: true,
	GlobalReassign:  true,
	Recursion:       true,
}

// BundlePrefix addresses the bundled scripts in load() and in file names.
const BundlePrefix = "@fabric//"

// Options configures a Runtime.
type Options struct {
	// IO is where scripts read and write; nil means the process's streams.
	IO *host.IO
	// Bundle holds the bundled scripts (command scripts at its root,
	// libraries below it).
	Bundle fs.FS
	// Predeclared are the modules and builtins every script sees, beside
	// the runtime's own (command, flag, try_, help, input, exit).
	Predeclared starlark.StringDict
	// Absent, when set, stands in for a name a script uses that is
	// neither predeclared nor universal, instead of the script failing to
	// compile: a build that lacks some modules still reads the commands
	// scripts declare, and Lacks says what a program would need.
	Absent func(name string) starlark.Value
	// CacheDir, when set, is where the bundled scripts' compiled programs
	// (and what their commands lack) are kept across processes: a command
	// then decodes its script instead of parsing and compiling it.
	CacheDir string
}

// Runtime executes scripts and keeps the modules they load.
type Runtime struct {
	io          *host.IO
	bundle      fs.FS
	predeclared starlark.StringDict
	absent      func(name string) starlark.Value
	// files are the modules parsed so far, resolved, by key.
	files map[string]*syntax.File
	// Commands holds the commands declared by the scripts run so far.
	Commands *command.Registry
	cache    map[string]*module
	stack    []string // modules being loaded, for cycle reports
	// diskCache keeps compiled bundled scripts across processes (nil:
	// none).
	diskCache *diskcache.Cache
	sig       string // see signature
}

type module struct {
	globals starlark.StringDict
	err     error
}

// New returns a Runtime.
func New(o Options) *Runtime {
	rt := &Runtime{io: o.IO, bundle: o.Bundle, absent: o.Absent, Commands: command.NewRegistry(), cache: map[string]*module{}, files: map[string]*syntax.File{}}
	if rt.io == nil {
		rt.io = host.Standard()
	}
	rt.diskCache = diskcache.New(o.CacheDir)
	rt.predeclared = starlark.StringDict{}
	for k, v := range o.Predeclared {
		rt.predeclared[k] = v
	}
	for k, v := range command.Builtins() {
		rt.predeclared[k] = v
	}
	for k, v := range builtins() {
		rt.predeclared[k] = v
	}
	return rt
}

// IO returns the streams scripts use.
func (rt *Runtime) IO() *host.IO { return rt.io }

// Predeclared returns the names every script sees (beside the universe).
func (rt *Runtime) Predeclared() starlark.StringDict { return rt.predeclared }

// NewThread returns a thread that prints to the runtime's stdout, loads
// modules through the runtime and registers declared commands.
func (rt *Runtime) NewThread(name string) *starlark.Thread {
	thread := &starlark.Thread{
		Name: name,
		Print: func(t *starlark.Thread, msg string) {
			fmt.Fprintln(host.From(t).Stdout, msg)
		},
		Load: rt.load,
	}
	host.Set(thread, rt.io)
	host.AttachContext(thread)
	command.Attach(thread, rt.Commands)
	thread.SetLocal(predeclaredKey, rt.predeclared)
	return thread
}

// ExecFile executes a script. filename is how errors name it: a path on
// disk, or BundlePrefix+path for a bundled script.
func (rt *Runtime) ExecFile(thread *starlark.Thread, filename string, src any) (starlark.StringDict, error) {
	var absent []string
	var prog *starlark.Program
	var err error
	if b, ok := src.([]byte); ok && strings.HasPrefix(filename, BundlePrefix) && rt.diskCache != nil {
		prog, absent, err = rt.program(filename, b)
	} else {
		var f *syntax.File
		f, prog, err = starlark.SourceProgramOptions(Dialect, filename, src, rt.isPredeclared(&absent))
		if err == nil {
			rt.files[filename] = f
		}
	}
	if err != nil {
		return nil, err
	}
	predeclared := rt.predeclared
	if len(absent) > 0 {
		predeclared = make(starlark.StringDict, len(rt.predeclared)+len(absent))
		for k, v := range rt.predeclared {
			predeclared[k] = v
		}
		for _, name := range absent {
			predeclared[name] = rt.absent(name)
		}
	}
	g, err := prog.Init(thread, predeclared)
	g.Freeze()
	return g, err
}

// isPredeclared is the resolver's test of a free name: a predeclared
// one, or with Absent any name the universe has not (appended to absent).
func (rt *Runtime) isPredeclared(absent *[]string) func(string) bool {
	return func(name string) bool {
		switch {
		case rt.predeclared.Has(name):
			return true
		case rt.absent == nil || starlark.Universe.Has(name):
			return false
		}
		if absent != nil {
			*absent = append(*absent, name)
		}
		return true
	}
}

// parsed returns the module key parsed and resolved (src, or its source
// when nil): the one its run parsed, when it ran; nil when it cannot be
// read or does not parse.
func (rt *Runtime) parsed(key string, src []byte) *syntax.File {
	if f, ok := rt.files[key]; ok {
		return f
	}
	if src == nil {
		var err error
		if src, err = rt.read(key); err != nil {
			return nil
		}
	}
	f, err := Dialect.Parse(key, src, 0)
	if err != nil {
		return nil
	}
	all := func(name string) bool { return !starlark.Universe.Has(name) }
	if resolve.File(f, all, starlark.Universe.Has) != nil {
		return nil
	}
	rt.files[key] = f
	return f
}

// ExecBundled executes the bundled script at path (relative to the bundle
// root), caching it like a loaded module.
func (rt *Runtime) ExecBundled(thread *starlark.Thread, p string) (starlark.StringDict, error) {
	return rt.loadModule(thread, BundlePrefix+path.Clean(p))
}

// ExecPath executes the script at a path on disk, caching it like a loaded
// module.
func (rt *Runtime) ExecPath(thread *starlark.Thread, p string) (starlark.StringDict, error) {
	return rt.loadModule(thread, filepath.Clean(p))
}

// load implements load() for threads of this runtime.
func (rt *Runtime) load(thread *starlark.Thread, name string) (starlark.StringDict, error) {
	from := ""
	if thread.CallStackDepth() > 0 {
		from = thread.CallFrame(0).Pos.Filename()
	}
	key, err := rt.Resolve(from, name)
	if err != nil {
		return nil, err
	}
	child := rt.NewThread(key)
	child.SetLocal("fabric.parent", thread)
	return rt.loadModule(child, key)
}

// Resolve turns a load() argument into a module key: BundlePrefix+path for
// bundled modules, a cleaned disk path otherwise. Relative names resolve
// against the directory of the loading file; from the REPL, -c or stdin,
// against the working directory.
func (rt *Runtime) Resolve(from, name string) (string, error) {
	switch {
	case name == "":
		return "", fmt.Errorf("load: empty module name")
	case strings.HasPrefix(name, BundlePrefix):
		p := path.Clean(strings.TrimPrefix(name, BundlePrefix))
		if strings.HasPrefix(p, "../") || p == ".." {
			return "", fmt.Errorf("load: %s is outside the bundled scripts", name)
		}
		return BundlePrefix + p, nil
	case strings.HasPrefix(name, "@"):
		return "", fmt.Errorf("load: unknown repository in %q (bundled modules are %sNAME.star)", name, BundlePrefix)
	case strings.HasPrefix(from, BundlePrefix):
		dir := path.Dir(strings.TrimPrefix(from, BundlePrefix))
		return BundlePrefix + path.Join(dir, name), nil
	case filepath.IsAbs(name):
		return filepath.Clean(name), nil
	case from == "" || strings.HasPrefix(from, "<"):
		return filepath.Clean(name), nil
	}
	return filepath.Join(filepath.Dir(from), name), nil
}

func (rt *Runtime) loadModule(thread *starlark.Thread, key string) (starlark.StringDict, error) {
	if m, ok := rt.cache[key]; ok {
		if m == nil {
			cycle := append(rt.cycleFrom(key), key)
			return nil, fmt.Errorf("load cycle: %s", strings.Join(cycle, " -> "))
		}
		return m.globals, m.err
	}
	src, err := rt.read(key)
	if err != nil {
		return nil, err
	}
	rt.cache[key] = nil // loading: a second visit is a cycle
	rt.stack = append(rt.stack, key)
	globals, err := rt.ExecFile(thread, key, src)
	rt.stack = rt.stack[:len(rt.stack)-1]
	rt.cache[key] = &module{globals, err}
	return globals, err
}

func (rt *Runtime) cycleFrom(key string) []string {
	for i, k := range rt.stack {
		if k == key {
			return append([]string{}, rt.stack[i:]...)
		}
	}
	return nil
}

// read returns the source of a module key.
func (rt *Runtime) read(key string) ([]byte, error) {
	if p, ok := strings.CutPrefix(key, BundlePrefix); ok {
		if rt.bundle == nil {
			return nil, fmt.Errorf("load: no bundled scripts to find %s in", key)
		}
		src, err := fs.ReadFile(rt.bundle, p)
		if err != nil {
			return nil, fmt.Errorf("load: no bundled module %s", key)
		}
		return src, nil
	}
	src, err := os.ReadFile(rt.io.Path(key))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("load: no such file: %s", key)
		}
		return nil, fmt.Errorf("load: %v", err)
	}
	return src, nil
}
