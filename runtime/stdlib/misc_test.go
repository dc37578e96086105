package stdlib

import (
	"bytes"
	"errors"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

func TestEnv(t *testing.T) {
	t.Setenv("FABRIC_TEST_A", "1")
	t.Setenv("FABRIC_TEST_B", "")
	os.Unsetenv("FABRIC_TEST_B")
	runCases(t, "", []testCase{
		{name: "get", src: `print(env.get("FABRIC_TEST_A"), env.get("FABRIC_TEST_B"), env.get("FABRIC_TEST_B", "d"))`, want: "1 None d\n"},
		{name: "set unset", src: `env.set("FABRIC_TEST_B", "x")` + "\nprint(env.get(\"FABRIC_TEST_B\"), \"FABRIC_TEST_B\" in env.names())\nenv.unset(\"FABRIC_TEST_B\")\nprint(env.get(\"FABRIC_TEST_B\"))", want: "x True\nNone\n"},
		{name: "names sorted", src: "n = env.names()\nprint(n == sorted(n), \"FABRIC_TEST_A\" in n)", want: "True True\n"},
		{name: "environ", src: "e = env.environ()\nprint(e[\"FABRIC_TEST_A\"], list(e.keys()) == env.names())", want: "1 True\n"},
		{name: "set bad name", src: `env.set("A=B", "x")`, wantErr: `env.set: invalid variable name "A=B"`},
		{name: "set non-string", src: `env.set("A", 1)`, wantErr: "env.set: for parameter value: got int, want string"},
	})
}

func TestHash(t *testing.T) {
	runCases(t, "", []testCase{
		{name: "sha256", src: `print(hash.sha256("abc"))`, want: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n"},
		{name: "sha1 bytes", src: `print(hash.sha1(b"abc"))`, want: "a9993e364706816aba3e25717850c26c9cd0d89d\n"},
		{name: "md5", src: `print(hash.md5(""))`, want: "d41d8cd98f00b204e9800998ecf8427e\n"},
		{name: "bad type", src: `hash.md5(1)`, wantErr: "hash.md5: for parameter data: got int, want str or bytes"},
	})
}

func TestSys(t *testing.T) {
	runCases(t, "", []testCase{
		{name: "argv", src: `print(sys.argv, sys.platform == "` + runtime.GOOS + `")`, want: `["script.star", "a", "b"] True` + "\n"},
		{name: "argv frozen", src: `sys.argv.append("c")`, wantErr: "frozen list"},
		{name: "exit bad", src: `sys.exit(1.5)`, wantErr: "sys.exit: for parameter code: got float, want int or str"},
		{name: "exit range", src: `sys.exit(256)`, wantErr: "sys.exit: exit code must be between 0 and 255"},
	})
	for _, tc := range []struct {
		src    string
		code   int
		stderr string
	}{
		{"sys.exit()", 0, ""},
		{"sys.exit(3)", 3, ""},
		{"sys.exit(None)", 0, ""},
		{`sys.exit("bad input")`, 1, "bad input\n"},
	} {
		r := run(t, tc.src, "", "")
		var exit *host.ExitError
		if !errors.As(r.err, &exit) || exit.Code != tc.code {
			t.Errorf("%s: error %v, want exit status %d", tc.src, r.err, tc.code)
		}
		if r.stderr != tc.stderr {
			t.Errorf("%s: stderr %q, want %q", tc.src, r.stderr, tc.stderr)
		}
	}
}

func TestInput(t *testing.T) {
	for _, tc := range []struct {
		name, src, stdin, want, stderr string
		eof                            bool
	}{
		{name: "lines", src: "print(input('name? '))\nprint(input())", stdin: "ann\r\nbob\nrest", want: "ann\nbob\n", stderr: "name? "},
		{name: "last line without newline", src: "print(input())\nprint(input())", stdin: "a\nb", want: "a\nb\n"},
		{name: "empty line", src: "print(repr(input()))", stdin: "\n", want: `""` + "\n"},
		{name: "end of input", src: "input()", stdin: "", eof: true},
		{name: "end after lines", src: "input()\ninput()", stdin: "x\n", eof: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, tc.src, tc.stdin, "")
			if tc.eof {
				if !errors.Is(r.err, ErrEndOfInput) || !strings.Contains(r.err.Error(), "input: end of input") {
					t.Fatalf("error %v, want input: end of input", r.err)
				}
				return
			}
			check(t, r, tc.want, "")
			if r.stderr != tc.stderr {
				t.Fatalf("stderr %q, want %q", r.stderr, tc.stderr)
			}
		})
	}
}

// onlyReader hides everything but Read, as a pipe does.
type onlyReader struct{ r io.Reader }

func (o *onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

func TestInputKeepsBufferedData(t *testing.T) {
	var stdout bytes.Buffer
	thread := &starlark.Thread{Print: func(_ *starlark.Thread, msg string) { stdout.WriteString(msg + "\n") }}
	host.Set(thread, &host.IO{Stdin: &onlyReader{strings.NewReader("one\ntwo\nthree\n")}, Stdout: &stdout, Stderr: io.Discard})
	in := InputBuiltin()
	for _, want := range []string{"one", "two", "three"} {
		v, err := starlark.Call(thread, in, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if v != starlark.String(want) {
			t.Fatalf("input() = %v, want %q", v, want)
		}
	}
	if _, err := starlark.Call(thread, in, nil, nil); !errors.Is(err, ErrEndOfInput) {
		t.Fatalf("error %v at the end, want ErrEndOfInput", err)
	}
}

func TestTimeMath(t *testing.T) {
	runCases(t, "", []testCase{
		{name: "duration", src: `print(time.parse_duration("1h30m"), 90 * time.second)`, want: "1h30m0s 1m30s\n"},
		{name: "time", src: `t = time.time(year=2024, month=2, day=30, location="UTC")` + "\nprint(t.month, t.day, t.format(\"2006-01-02\"))", want: "3 1 2024-03-01\n"},
		{name: "parse_time", src: `print(time.parse_time("2021-03-22T23:20:50Z").unix)`, want: "1616455250\n"},
		{name: "from_timestamp", src: `print(time.from_timestamp(0).in_location("UTC").year)`, want: "1970\n"},
		{name: "now", src: `print(type(time.now()))`, want: "time.time\n"},
		{name: "is_valid_timezone", src: `print(time.is_valid_timezone("UTC"), time.is_valid_timezone("Nowhere/Else"))`, want: "True False\n"},
		{name: "duration error", src: `time.parse_duration("soon")`, wantErr: `time.parse_duration: for parameter 1: invalid duration "soon"`},
		{name: "unpack error", src: `time.parse_time()`, wantErr: "time.parse_time: missing argument for x"},
		{name: "time positional", src: `time.time(2024)`, wantErr: "time.time: unexpected positional arguments"},
		{name: "math", src: `print(math.floor(2.7), math.ceil(2.1), math.sqrt(16), math.pow(2, 10), math.log(8, 2), math.round(math.pi))`, want: "2 3 4.0 1024.0 3.0 3.0\n"},
		{name: "math constants", src: `print(math.pi > 3.14, math.e < 2.72)`, want: "True True\n"},
		{name: "math error", src: `math.sqrt("x")`, wantErr: "math.sqrt: for parameter 1: got string, want float or int"},
	})
}

// TestDocs checks that every member of every module is a builtin documented
// under its qualified name, with a signature as the first line, or a
// non-callable constant.
func TestDocs(t *testing.T) {
	mods := Modules()
	mods["sys"] = SysModule(nil)
	for name, m := range mods {
		mod, ok := m.(*starlarkstruct.Module)
		if !ok {
			t.Errorf("%s is a %T, want a module", name, m)
			continue
		}
		if mod.Name != name {
			t.Errorf("module %s is named %q", name, mod.Name)
		}
		if d, ok := doc.Lookup(name); !ok || d == "" {
			t.Errorf("module %s has no doc", name)
		}
		for member, v := range mod.Members {
			checkDoc(t, name+"."+member, member, v)
		}
	}
	checkDoc(t, "input", "input", InputBuiltin())
}

func checkDoc(t *testing.T, qualified, short string, v starlark.Value) {
	t.Helper()
	b, ok := v.(*starlark.Builtin)
	if !ok {
		if _, callable := v.(starlark.Callable); callable {
			t.Errorf("%s is a callable %s, want a builtin", qualified, v.Type())
		}
		return
	}
	if b.Name() != qualified {
		t.Errorf("%s is named %q", qualified, b.Name())
	}
	d, ok := doc.Lookup(qualified)
	first, _, _ := strings.Cut(d, "\n")
	if !ok || !strings.HasPrefix(first, short+"(") || !strings.HasSuffix(first, ")") {
		t.Errorf("%s: doc first line %q, want its signature", qualified, first)
	}
	if !strings.Contains(d, "\n\n") {
		t.Errorf("%s: doc has no description", qualified)
	}
}
