package cli

// Golden transcripts of every command's output: each area test
// (output_*_test.go) starts one fabric, runs its commands' scenarios in
// order (a success and a bad input at least for each command) and
// records each run, scrubbed of volatile values, in
// testdata/output/COMMAND-KEY.golden. go test ./cli -run TestOutput -update
// rewrites them.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/internal/testutil"
	"github.com/fabricops/fabric/runtime/command"
	"github.com/fabricops/fabric/scripts"
)

// step is one line of a scenario: a command run (recorded in the
// transcript of its command), a file shown in a transcript, or an action.
type step struct {
	// cmd is the command line after "client", split as a shell would
	// (with '...' and "..." quoting), $NAME variables expanded.
	cmd string
	// stdin is fed to the command.
	stdin string
	// code is the exit code the run must have.
	code int
	// setup runs cmd without recording it; it must exit 0.
	setup bool
	// cat records "$ cat FILE" and the file's content in the transcript
	// of key, instead of a run; with cmd, key is the transcript the run
	// is recorded in (one of another command).
	cat, key string
	// do is an action between runs, not recorded.
	do func()
}

// session runs the scenarios of an area and keeps the transcripts of the
// commands it owns.
type session struct {
	t  *testing.T
	ix *command.Index
	// sc scrubs the transcripts; tests add the literals they know.
	sc *fabrictest.Scrubber
	// vars are expanded in the command lines ($DIR, $JOB1, ...).
	vars map[string]string
	// normalize, when set, rewrites a run's stderr before it is scrubbed.
	normalize func(key, stderr string) string
	logs      map[string]*strings.Builder
}

// newSession returns a session that owns the transcripts of keys; the
// transcripts are compared with their golden files when the test ends
// (unless it failed already).
func newSession(t *testing.T, keys ...string) *session {
	t.Helper()
	ix, err := command.NewIndex(scripts.FS, "")
	if err != nil {
		t.Fatal(err)
	}
	s := &session{t: t, ix: ix, sc: fabrictest.NewScrubber(), vars: map[string]string{"DIR": t.TempDir()}, logs: map[string]*strings.Builder{}}
	// $DIR/out receives what commands write (they do not create
	// directories).
	if err := os.Mkdir(filepath.Join(s.vars["DIR"], "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if _, ok := ix.Find(k); !ok {
			t.Fatalf("no command %q", k)
		}
		s.logs[k] = &strings.Builder{}
	}
	t.Cleanup(s.check)
	return s
}

// check compares each transcript with its golden file.
func (s *session) check() {
	if s.t.Failed() {
		return
	}
	for key, b := range s.logs {
		if b.Len() == 0 {
			s.t.Errorf("no run of %s was recorded", key)
			continue
		}
		testutil.Golden(s.t, filepath.Join("testdata", "output/"+key+".golden"), b.String(), *update)
	}
}

// expand replaces the $NAME variables of s.vars in x, longest names first.
func (s *session) expand(x string) string {
	names := make([]string, 0, len(s.vars))
	for k := range s.vars {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool { return len(names[i]) > len(names[j]) })
	for _, k := range names {
		x = strings.ReplaceAll(x, "$"+k, s.vars[k])
	}
	return x
}

// steps runs a scenario.
func (s *session) steps(steps ...step) {
	s.t.Helper()
	for _, st := range steps {
		switch {
		case st.do != nil:
			st.do()
		case st.cat != "":
			path := s.expand(st.cat)
			data, err := os.ReadFile(path)
			if err != nil {
				s.t.Fatalf("cat: %v", err)
			}
			s.record(st.key, s.sc.Scrub("$ cat "+path+"\n")+s.sc.Scrub(withNewline(string(data))))
		case st.setup:
			s.setup(st.stdin, s.expand(st.cmd))
		case st.key != "":
			// A run of another command, recorded in the transcript
			// of key (the state a scenario leads to).
			args := splitArgs(s.t, s.expand(st.cmd))
			out, errOut, code := run(s.t, st.stdin, args...)
			if code != st.code {
				s.t.Errorf("client %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", s.expand(st.cmd), code, st.code, out, errOut)
			}
			s.log(st.key, st.stdin, args, out, errOut, code)
		default:
			s.run(st.code, st.stdin, s.expand(st.cmd))
		}
	}
}

// setup runs a command line without recording it and returns its stdout.
func (s *session) setup(stdin, line string) string {
	s.t.Helper()
	out, errOut, code := run(s.t, stdin, splitArgs(s.t, line)...)
	if code != 0 {
		s.t.Fatalf("setup: client %s: exit %d\n%s%s", line, code, out, errOut)
	}
	return out
}

// run runs a command line, records it in its command's transcript and
// checks its exit code; it returns the run's stdout and stderr.
func (s *session) run(want int, stdin, line string) (string, string) {
	s.t.Helper()
	return s.runThen(want, stdin, line, nil)
}

// runThen is run, calling then with the run's stdout and stderr before it
// records them (to add literals to the scrubber).
func (s *session) runThen(want int, stdin, line string, then func(out, errOut string)) (string, string) {
	s.t.Helper()
	args := splitArgs(s.t, line)
	key, _, ok := s.ix.Resolve(args)
	if !ok {
		s.t.Fatalf("client %s: no such command", line)
	}
	out, errOut, code := run(s.t, stdin, args...)
	if code != want {
		s.t.Errorf("client %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", line, code, want, out, errOut)
	}
	if then != nil {
		then(out, errOut)
	}
	s.log(key, stdin, args, out, errOut, code)
	return out, errOut
}

// log records a run of the command key in its transcript.
func (s *session) log(key, stdin string, args []string, out, errOut string, code int) {
	s.t.Helper()
	if s.normalize != nil {
		errOut = s.normalize(key, errOut)
	}
	prompt := "$ client " + shellJoin(args) + "\n"
	if stdin != "" {
		prompt = "$ printf " + shellQuote(stdin) + " | client " + shellJoin(args) + "\n"
	}
	s.record(key, s.sc.Scrub(prompt)+s.sc.Scrub(withNewline(out))+"[stderr]\n"+s.sc.Scrub(withNewline(errOut))+fmt.Sprintf("[exit %d]\n", code))
}

// record appends an entry to the transcript of key, which the session
// must own.
func (s *session) record(key, entry string) {
	s.t.Helper()
	b, ok := s.logs[key]
	if !ok {
		s.t.Fatalf("the transcript of %s belongs to another test (run it as a setup step here)", key)
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	b.WriteString(entry)
}

// withNetworkConfig runs fn with FABRIC_NETWORK_CONFIG set to path.
func (s *session) withNetworkConfig(path string, fn func()) {
	old := os.Getenv("FABRIC_NETWORK_CONFIG")
	os.Setenv("FABRIC_NETWORK_CONFIG", path)
	defer os.Setenv("FABRIC_NETWORK_CONFIG", old)
	fn()
}

// unreachable runs the command lines against a fabric that does not run:
// a network configuration whose server is gone. Each must fail.
func (s *session) unreachable(lines ...string) {
	s.t.Helper()
	path := filepath.Join(s.t.TempDir(), "gone.json")
	write(s.t, filepath.Dir(path), "gone.json", `{"tenant": "a", "nats": {"urls": ["nats://127.0.0.1:1"], "user": "a", "password": "x"}}`)
	s.withNetworkConfig(path, func() {
		for _, line := range lines {
			s.run(1, "", s.expand(line))
		}
	})
}

// withNewline returns s ending in a newline (empty stays empty); a missing
// newline is marked.
func withNewline(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n[no newline at the end]\n"
}

// splitArgs splits a command line as a shell does: words separated by
// spaces, '...' and "..." quoting (no escapes).
func splitArgs(t *testing.T, line string) []string {
	t.Helper()
	var args []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ':
			if inWord {
				args = append(args, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		t.Fatalf("unclosed quote in %q", line)
	}
	if inWord {
		args = append(args, cur.String())
	}
	return args
}

var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./:=@%+,<>\[\]-]+$`)

// shellJoin writes args as a shell command line.
func shellJoin(args []string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = a
		if !plainWord.MatchString(a) {
			quoted[i] = shellQuote(a)
		}
	}
	return strings.Join(quoted, " ")
}

func shellQuote(s string) string {
	if strings.ContainsFunc(s, func(r rune) bool { return r == '\n' || !unicode.IsPrint(r) }) {
		return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "\n", `\n`) + "'"
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// outputExceptions are the commands whose main action cannot run in these
// tests, and why; their transcripts show what can run (each still has a
// run that exits 0 and one that does not, as every transcript must).
var outputExceptions = map[string]string{
	"fabric-up":   "starting fabricd is tested in cmd/client; here its transcript shows a fabric that runs already (the state file names the test process) and a bad tenant name",
	"fabric-down": "stopping a running fabric is tested in cmd/client (here it would signal the test process); its transcript shows a fabric that is not running and a malformed state file",
}

var exitLine = regexp.MustCompile(`(?m)^\[exit (\d+)\]$`)

// TestOutputGoldenCoverage: every bundled command has a transcript, with a
// run that succeeds and one that fails, and no transcript is left of a
// command that is gone.
func TestOutputGoldenCoverage(t *testing.T) {
	ix, err := command.NewIndex(scripts.FS, "")
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	var missing, incomplete []string
	for _, key := range ix.Keys() {
		keys[key] = true
		data, err := os.ReadFile(filepath.Join("testdata", "output", key+".golden"))
		if err != nil {
			missing = append(missing, key)
			continue
		}
		ok, failed := false, false
		for _, m := range exitLine.FindAllStringSubmatch(string(data), -1) {
			ok = ok || m[1] == "0"
			failed = failed || m[1] != "0"
		}
		if !ok || !failed {
			incomplete = append(incomplete, fmt.Sprintf("%s (success %v, failure %v)", key, ok, failed))
		}
	}
	if len(missing) > 0 {
		t.Errorf("commands without testdata/output/KEY.golden: %s", strings.Join(missing, ", "))
	}
	if len(incomplete) > 0 {
		t.Errorf("transcripts without both a success and a failure: %s", strings.Join(incomplete, ", "))
	}
	for key := range outputExceptions {
		if !keys[key] {
			t.Errorf("outputExceptions names %s, which is no command", key)
		}
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "output", "*.golden"))
	for _, f := range files {
		if key := strings.TrimSuffix(filepath.Base(f), ".golden"); !keys[key] {
			t.Errorf("%s is the transcript of no command", f)
		}
	}
}
