package runtime

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"go.starlark.net/starlark"
)

// program returns the compiled program of the bundled script filename
// with source src, and the free names it uses that this build lacks
// (bound to Options.Absent): from the cache when there, else compiled
// (and stored).
func (rt *Runtime) program(filename string, src []byte) (*starlark.Program, []string, error) {
	sig := rt.signature()
	if data, ok := rt.diskCache.Get("program", sig, filename, string(src)); ok {
		if head, body, ok := bytes.Cut(data, []byte("\n")); ok {
			if prog, err := starlark.CompiledProgram(bytes.NewReader(body)); err == nil {
				var absent []string
				if len(head) > 0 {
					absent = strings.Split(string(head), ",")
				}
				return prog, absent, nil
			}
		}
	}
	var absent []string
	f, prog, err := starlark.SourceProgramOptions(Dialect, filename, src, rt.isPredeclared(&absent))
	if err != nil {
		return nil, nil, err
	}
	rt.files[filename] = f
	var b bytes.Buffer
	b.WriteString(strings.Join(absent, ","))
	b.WriteByte('\n')
	if prog.Write(&b) == nil {
		rt.diskCache.Put(b.Bytes(), "program", sig, filename, string(src))
	}
	return prog, absent, nil
}

// signature names what a compiled program depends on beside its source:
// the names predeclared in this runtime, and whether absent names are
// bound (the resolver decides from them how each name is reached).
func (rt *Runtime) signature() string {
	if rt.sig == "" {
		names := make([]string, 0, len(rt.predeclared))
		for k := range rt.predeclared {
			names = append(names, k)
		}
		sort.Strings(names)
		rt.sig = fmt.Sprintf("absent=%t;%s", rt.absent != nil, strings.Join(names, ","))
	}
	return rt.sig
}
