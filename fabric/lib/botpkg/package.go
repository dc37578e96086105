package botpkg

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Dialect is the Starlark of bot packages, the shell's permissive one:
// while loops, top-level control flow, sets, recursion and global
// reassignment are allowed.
var Dialect = &syntax.FileOptions{Set: true, While: true, TopLevelControl: true, GlobalReassign: true, Recursion: true}

// DialectVersion names the dialect for list-runtimes.
const DialectVersion = "starlark-go 2026-09 (permissive)"

// Limits bound a package and the calls of its bots; a zero field takes
// its default (see DefaultLimits).
type Limits struct {
	// Files bounds the files of a package, FileSize each file's bytes.
	Files    int
	FileSize int64
	// Steps bounds the Starlark steps of one call (and of loading the
	// modules).
	Steps uint64
	// Value bounds the bytes of one value an operation makes.
	Value int
	// Memory bounds the memory a call may hold (0: no watch).
	Memory int64
	// Rows bounds the rows a call returns.
	Rows int
}

// DefaultLimits are the limits of a zero field.
var DefaultLimits = Limits{Files: 200, FileSize: 1 << 20, Steps: 100_000_000, Value: 64 << 20, Rows: 10_000_000}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	if l.Files <= 0 {
		l.Files = d.Files
	}
	if l.FileSize <= 0 {
		l.FileSize = d.FileSize
	}
	if l.Steps == 0 {
		l.Steps = d.Steps
	}
	if l.Value <= 0 {
		l.Value = d.Value
	}
	if l.Rows <= 0 {
		l.Rows = d.Rows
	}
	return l
}

// Package is a loaded bot package: its manifest and the bots of its
// implementation value, compiled and frozen, callable from any number of
// threads at once.
type Package struct {
	Manifest *Manifest
	// Template is the manifest's config_template read.
	Template *Template
	// Files are the names of the package's files, sorted.
	Files []string
	bots  map[string]starlark.Callable
	// check is the implementation's check_credentials(config), nil when
	// it has none.
	check starlark.Callable
	limit Limits
}

// CheckName is the field of the implementation value that checks a
// source's configuration: check_credentials(config).
const CheckName = "check_credentials"

// IsTest reports whether a file of a package is a test module
// (test_*.star), which Load compiles but does not run.
func IsTest(name string) bool {
	base := path.Base(name)
	return strings.HasPrefix(base, "test_") && strings.HasSuffix(base, ".star")
}

// Load reads a package from fsys (its root holds bots.yml): it checks the
// manifest, compiles every module (errors file:line:col), runs the
// implementation's module (with its loads) under the step budget, and
// checks that every bot of bots.yml is a function of the implementation
// value taking (frame, params, config).
func Load(ctx context.Context, fsys fs.FS, l Limits) (*Package, error) {
	return LoadWith(ctx, fsys, l, nil)
}

// Libraries are the libraries a package's modules may load, by name:
// load("@lib/NAME//path/to/module.star", ...) runs that module of the
// library NAME (the libraries installed on the pod).
type Libraries map[string]fs.FS

// LibPrefix starts the load path of a library's module.
const LibPrefix = "@lib/"

// LoadWith is Load with the libraries the package's modules may load.
// With libs nil (Load: checking a package where it does not run, as add,
// build and ut do) a library's module is not read: the names loaded from
// it are stand-ins that fail when called, naming the library.
func LoadWith(ctx context.Context, fsys fs.FS, l Limits, libs Libraries) (*Package, error) {
	l = l.withDefaults()
	files, err := readFiles(fsys, l)
	if err != nil {
		return nil, err
	}
	data, ok := files[ManifestFile]
	if !ok {
		return nil, fmt.Errorf("the package has no %s", ManifestFile)
	}
	m, err := ParseManifest(data)
	if err != nil {
		return nil, err
	}
	t, _ := ParseTemplate(m.Extension.ConfigTemplate)
	ld := &loader{files: files, limit: l, libs: libs, progs: map[string]*starlark.Program{}, done: map[string]*entry{}}
	var names []string
	for name := range files {
		names = append(names, name)
		if strings.HasSuffix(name, ".star") {
			if err := ld.compile(name, IsTest(name)); err != nil {
				return nil, err
			}
		}
	}
	sort.Strings(names)
	p := &Package{Manifest: m, Template: t, Files: names, bots: map[string]starlark.Callable{}, limit: l}
	module, value := m.Code()
	file := module + ".star"
	if _, ok := files[file]; !ok {
		return nil, fmt.Errorf("%s: extension.implementation.code %q names the module %s, which the package does not have", ManifestFile, m.Extension.Implementation.Code, file)
	}
	thread := newThread(ctx, "load "+file, l.Steps)
	thread.Load = ld.load
	stop := watchContext(ctx, thread)
	globals, err := ld.exec(thread, file)
	stop()
	if err != nil {
		return nil, callError(ctx, thread, l, err)
	}
	impl, ok := globals[value]
	if !ok {
		return nil, fmt.Errorf("%s: extension.implementation.code %q: %s defines no %s", ManifestFile, m.Extension.Implementation.Code, file, value)
	}
	for _, b := range m.Bots {
		fn, err := botFunc(impl, FieldName(b.Name))
		if err != nil {
			return nil, fmt.Errorf("%s: bot %s: %v", ManifestFile, b.Name, err)
		}
		p.bots[b.Name] = fn
	}
	if check, err := fieldOf(impl, CheckName); err == nil && check != nil {
		fn, ok := check.(*starlark.Function)
		if !ok || (fn.NumParams() != 1 && !fn.HasVarargs()) {
			return nil, fmt.Errorf("%s: %s: %s must be a function of one parameter, config", ManifestFile, m.Extension.Implementation.Code, CheckName)
		}
		p.check = fn
	}
	return p, nil
}

// readFiles reads the regular files of fsys, bounded.
func readFiles(fsys fs.FS, l Limits) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		if len(files) >= l.Files {
			return fmt.Errorf("the package has more than %d files", l.Files)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if info.Size() > l.FileSize {
			return fmt.Errorf("%s is over the file size limit of %d bytes", name, l.FileSize)
		}
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		if int64(len(data)) > l.FileSize {
			return fmt.Errorf("%s is over the file size limit of %d bytes", name, l.FileSize)
		}
		files[name] = data
		return nil
	})
	return files, err
}

// botFunc finds a bot's function in the implementation value (a struct
// or a dict) and checks it takes three parameters.
func botFunc(impl starlark.Value, field string) (starlark.Callable, error) {
	v, err := fieldOf(impl, field)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, fmt.Errorf("not defined: the implementation value has no %s", field)
	}
	fn, ok := v.(*starlark.Function)
	if !ok {
		return nil, fmt.Errorf("%s is a %s, not a function", field, v.Type())
	}
	if fn.NumParams() != 3 && !fn.HasVarargs() {
		pos := fn.Position()
		return nil, fmt.Errorf("%s: %s takes %d parameters, not (frame, params, config)", pos, field, fn.NumParams())
	}
	return fn, nil
}

// fieldOf is the field name of the implementation value (nil when it has
// none).
func fieldOf(impl starlark.Value, name string) (starlark.Value, error) {
	switch x := impl.(type) {
	case *starlark.Dict:
		got, found, _ := x.Get(starlark.String(name))
		if found {
			return got, nil
		}
		return nil, nil
	case starlark.HasAttrs:
		got, err := x.Attr(name)
		if err != nil {
			return nil, nil
		}
		return got, nil
	}
	return nil, fmt.Errorf("the implementation value is a %s, not a struct or dict", impl.Type())
}

// loader compiles the modules of a package and runs them for load().
type loader struct {
	files map[string][]byte
	limit Limits
	// libs are the libraries load("@lib/NAME//...") reaches; their
	// modules are compiled when first loaded, under their load path.
	libs Libraries
	// libNames are the names the modules load from each library module.
	libNames map[string][]string
	progs    map[string]*starlark.Program
	done     map[string]*entry
	// fixtures, when set, are what test modules' fixture() reads.
	fixtures fs.FS
	frames   Fixtures
}

type entry struct {
	globals starlark.StringDict
	err     error
}

// predeclared are the names every module sees.
func predeclared(l Limits, test bool) starlark.StringDict {
	d := starlark.StringDict{"http": httpModule, "struct": structBuiltin, "json": jsonModule, "math": mathModule, "fail": starlark.Universe["fail"],
		"file": fileModule, "os": osModule, "open": refused("open")}
	for k, v := range guards(l.Value) {
		d[k] = v
	}
	if test {
		d["assert"] = assertModule
		d["fixture"] = starlark.None
	}
	return d
}

// compile parses, guards and compiles a module.
func (ld *loader) compile(name string, test bool) error {
	f, err := Dialect.Parse(name, ld.files[name], 0)
	if err != nil {
		return oneError(err)
	}
	if err := guardFile(f); err != nil {
		return err
	}
	for _, stmt := range f.Stmts {
		if l, ok := stmt.(*syntax.LoadStmt); ok {
			if m, _ := l.Module.Value.(string); strings.HasPrefix(m, LibPrefix) {
				if ld.libNames == nil {
					ld.libNames = map[string][]string{}
				}
				for _, id := range l.From {
					ld.libNames[m] = append(ld.libNames[m], id.Name)
				}
			}
		}
	}
	prog, err := starlark.FileProgram(f, predeclared(ld.limit, test).Has)
	if err != nil {
		return oneError(err)
	}
	ld.progs[name] = prog
	return nil
}

// oneError is the first error of a list, as "file:line:col: message".
func oneError(err error) error {
	type list interface{ Unwrap() []error }
	if l, ok := err.(list); ok && len(l.Unwrap()) > 0 {
		return l.Unwrap()[0]
	}
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return errors.New(s[:i])
	}
	return err
}

// load is the thread's load: only the package's own modules, by a path
// relative to the package's root.
func (ld *loader) load(thread *starlark.Thread, module string) (starlark.StringDict, error) {
	if strings.HasPrefix(module, LibPrefix) {
		return ld.loadLib(thread, module)
	}
	name := path.Clean(strings.TrimPrefix(module, "./"))
	if strings.HasPrefix(module, "/") || strings.HasPrefix(name, "..") || !strings.HasSuffix(name, ".star") {
		return nil, fmt.Errorf("load(%q): a bot package loads only its own .star modules", module)
	}
	if _, ok := ld.progs[name]; !ok || IsTest(name) {
		return nil, fmt.Errorf("load(%q): the package has no module %s", module, name)
	}
	return ld.exec(thread, name)
}

// loadLib runs a module of a library: "@lib/NAME//path.star". A library
// the pod has not installed (only staged, or not at all) is not there.
func (ld *loader) loadLib(thread *starlark.Thread, module string) (starlark.StringDict, error) {
	lib, file, ok := strings.Cut(strings.TrimPrefix(module, LibPrefix), "//")
	clean := path.Clean(file)
	if !ok || lib == "" || !strings.HasSuffix(clean, ".star") || strings.HasPrefix(clean, "..") || strings.HasPrefix(file, "/") {
		return nil, fmt.Errorf("load(%q): a library's module is loaded as @lib/NAME//path/to/module.star", module)
	}
	if ld.libs == nil {
		return ld.libStandIns(module, lib), nil
	}
	fsys, ok := ld.libs[lib]
	if !ok {
		return nil, fmt.Errorf("load(%q): no library %s is installed on this pod (library install, then restart the pod)", module, lib)
	}
	key := LibPrefix + lib + "//" + clean
	if _, done := ld.progs[key]; !done {
		f, err := fsys.Open(clean)
		if err != nil {
			return nil, fmt.Errorf("load(%q): library %s has no module %s", module, lib, clean)
		}
		data, err := io.ReadAll(io.LimitReader(f, ld.limit.FileSize+1))
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("load(%q): %v", module, err)
		}
		if int64(len(data)) > ld.limit.FileSize {
			return nil, fmt.Errorf("load(%q): the module is over the file size limit of %d bytes", module, ld.limit.FileSize)
		}
		ld.files[key] = data
		if err := ld.compile(key, false); err != nil {
			return nil, err
		}
	}
	return ld.exec(thread, key)
}

// libStandIns are the names the package's modules load from module,
// each a builtin that fails naming the library: a package is checked
// where the libraries are not installed.
func (ld *loader) libStandIns(module, lib string) starlark.StringDict {
	d := starlark.StringDict{}
	for _, name := range ld.libNames[module] {
		d[name] = starlark.NewBuiltin(name, func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			return nil, fmt.Errorf("%s comes from library %s, which only a pod that installed it runs", name, lib)
		})
	}
	return d
}

// exec runs a module once, reporting a load cycle.
func (ld *loader) exec(thread *starlark.Thread, name string) (starlark.StringDict, error) {
	if e, ok := ld.done[name]; ok {
		if e == nil {
			return nil, fmt.Errorf("load cycle through %s", name)
		}
		return e.globals, e.err
	}
	ld.done[name] = nil
	env := predeclared(ld.limit, IsTest(name))
	if IsTest(name) && ld.fixtures != nil {
		env["fixture"] = fixtureBuiltin(ld.fixtures, ld.frames)
	}
	g, err := ld.progs[name].Init(thread, env)
	g.Freeze()
	ld.done[name] = &entry{g, err}
	return g, err
}
