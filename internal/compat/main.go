// Command compat runs go-driver v2's own test suite (the tests package of
// github.com/arangodb/go-driver/v2 at the version go.mod requires,
// unmodified) against an embedded graph database it starts on 127.0.0.1,
// in single-server mode, and prints what passes per group of tests, then
// the share of the groups the graph database claims.
//
// Every test of the suite that goes through its Wrap helpers runs twice,
// as the subtests "HTTP JSON" (HTTP/1.1) and "HTTP2 JSON" (h2c): the suite
// has no environment variable that picks one protocol, it runs both.
//
// A unit is a test without subtests; a test whose subtests all pass but
// which fails itself counts as one more failing unit. A test belongs to
// the group of the file that declares its top-level test (database_test.go:
// databases; database_collection_doc_*: documents; ...; see groupOf).
// Tests that skip themselves are counted as skipped, with their reason:
// those that need a cluster or the enterprise edition, those gated on a
// server version, those that need JavaScript (the server reports
// v8-version "none") or an environment the run does not set up.
//
// The suite is built once (go test -c) and each top-level test runs in a
// process of its own, at most -parallel at once: a test that panics in a
// goroutine ends only its own process; a test that did not end within
// -timeout counts as failed.
//
//	go run ./internal/compat [-run REGEXP] [-groups G,...] [-v] [-json FILE] [-timeout 3m] [-parallel 4]
//	                       [-min PERCENT] [-green GROUP,...]
package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fabricops/fabric/fabric/lib/graphstore"
	"github.com/fabricops/fabric/fabric/pods/graphdb"
)

// suite is the package whose tests run.
const (
	driverModule = "github.com/arangodb/go-driver/v2"
	suite        = driverModule + "/tests"
)

// claimed are the groups the graph database claims to serve, whose share
// is printed last.
var claimed = []string{"databases", "collections", "documents", "import", "cursors", "queries"}

func main() {
	o := options{}
	flag.StringVar(&o.run, "run", "", "run only the suite's top-level tests whose names match this regexp")
	flag.StringVar(&o.groups, "groups", "", "run only the tests of these comma-separated groups (databases, collections, documents, ...)")
	flag.DurationVar(&o.timeout, "timeout", 3*time.Minute, "the time limit of each top-level test")
	flag.IntVar(&o.parallel, "parallel", 4, "top-level tests (processes) run at once")
	flag.BoolVar(&o.verbose, "v", false, "list every failing and skipped unit with its reason, and the server's log")
	flag.StringVar(&o.events, "json", "", "also write the suite's go test -json events to this file")
	flag.StringVar(&o.auth, "auth", "basic", "how the suite authenticates: basic or jwt")
	flag.Float64Var(&o.minShare, "min", 0, "exit 1 when the claimed groups' share of passing units is below this percentage")
	flag.StringVar(&o.green, "green", "", "comma-separated groups that must stay green: exit 1 when a unit of one fails")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "compat:", err)
		os.Exit(1)
	}
}

type options struct {
	run      string
	timeout  time.Duration
	parallel int
	verbose  bool
	events   string
	auth     string
	minShare float64
	green    string
	groups   string
}

func run(o options) error {
	if o.auth != "basic" && o.auth != "jwt" {
		return fmt.Errorf("-auth %q: basic or jwt", o.auth)
	}
	goCmd := os.Getenv("GO")
	if goCmd == "" {
		goCmd = "go"
	}
	root, err := goOut(goCmd, "", "env", "GOMOD")
	if err != nil || root == "" || root == os.DevNull {
		return fmt.Errorf("not inside the fabric module (go env GOMOD: %q %v)", root, err)
	}
	root = filepath.Dir(root)
	version, err := goOut(goCmd, root, "list", "-m", "-f", "{{.Version}}", driverModule)
	if err != nil {
		return fmt.Errorf("go list -m %s: %v", driverModule, err)
	}
	dir, err := goOut(goCmd, root, "list", "-f", "{{.Dir}}", suite)
	if err != nil {
		return fmt.Errorf("go list %s: %v", suite, err)
	}
	files, err := testFiles(dir)
	if err != nil {
		return err
	}

	names, err := selected(files, o.run, o.groups)
	if err != nil {
		return err
	}

	srv, err := start()
	if err != nil {
		return err
	}
	defer srv.stop()

	// The suite is built once and each top-level test runs in its own
	// process: a test that panics in a goroutine (Test_UserPermission
	// does when the server has no /_api/user) ends its process, and
	// would otherwise end every test still running or not yet started.
	bin := filepath.Join(srv.dir, "suite.test")
	build := exec.Command(goCmd, "test", "-c", "-vet=off", "-o", bin, suite)
	build.Dir, build.Stdout, build.Stderr = root, os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building %s: %v", suite, err)
	}
	env := append(suiteEnv(os.Environ()),
		"TEST_ENDPOINTS="+srv.url,
		"TEST_MODE=single",
		"TEST_AUTHENTICATION="+o.auth+":"+srv.user+":"+srv.password)
	var raw io.Writer = io.Discard
	if o.events != "" {
		f, err := os.Create(o.events)
		if err != nil {
			return err
		}
		defer f.Close()
		raw = f
	}
	fmt.Printf("go-driver %s's test suite (%s, unmodified) against the embedded graph database on %s:\n"+
		"single server, HTTP/1.1 and h2c, %s authentication, %d top-level tests, each in its own process\n",
		version, suite, srv.url, o.auth, len(names))
	began := time.Now()
	r := newRun()
	done := make(chan struct{})
	go progress(r, began, done)
	jobs := make(chan string)
	var wg sync.WaitGroup
	for range max(o.parallel, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range jobs {
				if err := runOne(goCmd, bin, dir, name, env, o.timeout, r, raw); err != nil {
					fmt.Fprintf(os.Stderr, "compat: %s: %v\n", name, err)
				}
			}
		}()
	}
	for _, name := range names {
		jobs <- name
	}
	close(jobs)
	wg.Wait()
	close(done)
	if len(r.tests) == 0 {
		return fmt.Errorf("the suite ran no test")
	}
	rep := r.report(files)
	rep.print(os.Stdout, o.verbose, time.Since(began))
	if o.verbose {
		srv.printLog(os.Stdout)
	}
	if o.green != "" {
		if failing := rep.failing(strings.Split(o.green, ",")); len(failing) > 0 {
			return fmt.Errorf("%d units of the groups that must stay green (-green %s) fail: %s",
				len(failing), o.green, strings.Join(failing, ", "))
		}
	}
	if share := rep.share(claimed); o.minShare > 0 && share < o.minShare {
		return fmt.Errorf("%.1f%% of the claimed groups' units pass, below -min %.1f%%", share, o.minShare)
	}
	return nil
}

// runOne runs one top-level test of the suite's binary (in the suite's
// directory, as go test runs it) and adds its events to r.
func runOne(goCmd, bin, dir, name string, env []string, timeout time.Duration, r *testRun, raw io.Writer) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout+time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goCmd, "tool", "test2json", "-t", "-p", suite, bin, "-test.v=test2json",
		"-test.run", "^"+name+"$", "-test.count=1", "-test.timeout", timeout.String())
	cmd.Dir, cmd.Env, cmd.Stderr = dir, env, os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var ev event
		if json.Unmarshal(line, &ev) != nil {
			continue
		}
		r.add(ev, func() { raw.Write(append(line, '\n')) })
	}
	cmd.Wait() // a failing test exits 1: its events tell
	return nil
}

// selected are the suite's top-level tests whose names match run (all
// when run is empty), sorted.
func selected(files map[string]string, run, groups string) ([]string, error) {
	re, err := regexp.Compile(run)
	if err != nil {
		return nil, fmt.Errorf("-run: %v", err)
	}
	var in map[string]bool
	if groups != "" {
		in = map[string]bool{}
		for _, g := range strings.Split(groups, ",") {
			in[strings.TrimSpace(g)] = true
		}
	}
	var names []string
	for name, file := range files {
		if re.MatchString(name) && (in == nil || in[groupOf(file)]) {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no test of the suite matches -run %q and -groups %q", run, groups)
	}
	sort.Strings(names)
	return names, nil
}

// goOut runs the go command and returns its trimmed output.
func goOut(goCmd, dir string, args ...string) (string, error) {
	cmd := exec.Command(goCmd, args...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}

// suiteEnv is the environment without the suite's own variables, so that
// a run depends only on what this command sets (no cluster mode, no
// shutdown test, no extra features from the caller's shell).
func suiteEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "TEST_") || strings.HasPrefix(name, "ENABLE_") ||
			strings.HasPrefix(name, "K8S_") || strings.HasPrefix(name, "TOXIPROXY_") || name == "TESTV2PARALLEL" {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// testFiles maps each top-level test of the suite to its file's name.
func testFiles(dir string) (map[string]string, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil || len(names) == 0 {
		return nil, fmt.Errorf("no test files in %s (%v)", dir, err)
	}
	files := map[string]string{}
	fset := token.NewFileSet()
	for _, name := range names {
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Test") {
				files[fn.Name.Name] = filepath.Base(name)
			}
		}
	}
	return files, nil
}

// groupOf names the group of a test file.
func groupOf(file string) string {
	base := strings.TrimSuffix(file, "_test.go")
	has := func(prefixes ...string) bool {
		for _, p := range prefixes {
			if strings.HasPrefix(base, p) {
				return true
			}
		}
		return false
	}
	switch {
	case base == "database":
		return "databases"
	case base == "database_collection_operations", base == "computed_values":
		return "collections"
	case has("database_collection_indexes"):
		return "indexes"
	case base == "database_collection_doc_import":
		return "import"
	case has("database_collection_doc_"):
		return "documents"
	case base == "cursor":
		return "cursors"
	case base == "database_query":
		return "queries"
	case has("database_transactions"):
		return "transactions"
	case base == "graph", has("graph_"):
		return "graphs"
	case has("database_view", "database_analyzer"):
		return "views & analyzers"
	case has("users"):
		return "users"
	case base == "admin", has("admin_", "client_", "backup", "tasks", "foxx", "asyncjob"):
		return "admin & server"
	case has("resiliency_", "toxiproxy_", "network_fault"):
		return "resiliency"
	case has("call", "context", "decoder", "pool", "errors"):
		return "driver internals"
	}
	return base
}

// server is the embedded graph database the suite talks to.
type server struct {
	url, user, password string
	dir                 string
	http                *http.Server
	store               *graphstore.Store
	logMu               sync.Mutex
	log                 []string
}

func start() (*server, error) {
	dir, err := os.MkdirTemp("", "fabric-compat-")
	if err != nil {
		return nil, err
	}
	st, err := graphstore.Open(filepath.Join(dir, "store"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	pw := make([]byte, 12)
	_, _ = rand.Read(pw)
	s := &server{user: "root", password: hex.EncodeToString(pw), dir: dir, store: st}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		st.Close()
		os.RemoveAll(dir)
		return nil, err
	}
	s.url = "http://" + ln.Addr().String()
	g := graphdb.New(st, graphdb.Options{User: s.user, Password: s.password, Logf: s.logf})
	// As the graphdb pod serves (graphdb.Serve), without its connection
	// bound: the suite's parallel tests hold many.
	s.http = &http.Server{Handler: g.Handler(), Protocols: graphdb.Protocols(),
		ReadHeaderTimeout: 30 * time.Second, IdleTimeout: 5 * time.Minute}
	go s.http.Serve(ln)
	return s, nil
}

func (s *server) logf(format string, args ...any) {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	s.log = append(s.log, fmt.Sprintf(format, args...))
}

func (s *server) printLog(w io.Writer) {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	if len(s.log) == 0 {
		return
	}
	fmt.Fprintf(w, "\nthe graph database's log (%d lines):\n", len(s.log))
	for _, l := range s.log {
		fmt.Fprintln(w, "  "+strings.TrimRight(l, "\n"))
	}
}

func (s *server) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if s.http.Shutdown(ctx) != nil {
		s.http.Close()
	}
	s.store.Close()
	os.RemoveAll(s.dir)
}

// event is a line of go test -json.
type event struct {
	Action string
	Test   string
	Output string
}

// test is what the events said of one test.
type test struct {
	name   string
	action string   // "run" until it ends: pass, fail or skip
	output []string // its output lines (the last ones)
	panic  string   // the first "panic: " line of its output
}

const keptLines = 40

type testRun struct {
	mu    sync.Mutex
	tests map[string]*test
	order []string
}

func newRun() *testRun { return &testRun{tests: map[string]*test{}} }

func (r *testRun) add(ev event, write func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	write()
	if ev.Test == "" {
		return
	}
	t, ok := r.tests[ev.Test]
	if !ok {
		t = &test{name: ev.Test, action: "run"}
		r.tests[ev.Test] = t
		r.order = append(r.order, ev.Test)
	}
	switch ev.Action {
	case "pass", "fail", "skip":
		t.action = ev.Action
	case "output":
		if strings.HasPrefix(ev.Output, "panic: ") && t.panic == "" {
			t.panic = strings.TrimSpace(ev.Output)
		}
		t.output = append(t.output, ev.Output)
		if len(t.output) > keptLines {
			t.output = t.output[len(t.output)-keptLines:]
		}
	}
}

// progress prints, every half minute, how far the suite is.
func progress(r *testRun, began time.Time, done chan struct{}) {
	tick := time.NewTicker(30 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
			r.mu.Lock()
			ended := 0
			for _, t := range r.tests {
				if t.action != "run" {
					ended++
				}
			}
			fmt.Fprintf(os.Stderr, "compat: %s: %d tests ended, %d running\n",
				time.Since(began).Round(time.Second), ended, len(r.tests)-ended)
			r.mu.Unlock()
		}
	}
}

// unit is one counted outcome.
type unit struct {
	name, group, protocol, outcome, reason string
}

type report struct {
	units []unit
}

// report turns the tests into units.
func (r *testRun) report(files map[string]string) *report {
	r.mu.Lock()
	defer r.mu.Unlock()
	hasChildren := map[string]bool{}
	failedChild := map[string]bool{}
	for _, name := range r.order {
		for p := parentOf(name); p != ""; p = parentOf(p) {
			hasChildren[p] = true
			if r.tests[name].action != "pass" && r.tests[name].action != "skip" {
				failedChild[p] = true
			}
		}
	}
	rep := &report{}
	for _, name := range r.order {
		t := r.tests[name]
		top, _, _ := strings.Cut(name, "/")
		group := "other"
		if f, ok := files[top]; ok {
			group = groupOf(f)
		}
		u := unit{name: name, group: group, protocol: protocolOf(name)}
		switch {
		case hasChildren[name] && (t.action == "pass" || t.action == "skip" || failedChild[name]):
			continue // counted through its subtests
		case t.action == "run":
			u.outcome, u.reason = "fail", "did not finish"
			p := ""
			if tt := r.tests[top]; tt != nil {
				p = tt.panic
			}
			if strings.HasPrefix(p, "panic: test timed out") {
				u.reason += ": " + p
			} else if p != "" {
				u.reason += ": its process crashed: " + clip(p)
			}
		default:
			u.outcome = t.action
		}
		switch u.outcome {
		case "fail":
			if u.reason == "" {
				u.reason = failReason(t.output)
			}
		case "skip":
			u.reason = skipReason(t.output)
		}
		rep.units = append(rep.units, u)
	}
	return rep
}

func parentOf(name string) string {
	i := strings.LastIndex(name, "/")
	if i < 0 {
		return ""
	}
	return name[:i]
}

// protocolOf tells the protocol of a test under the suite's Wrap helpers.
func protocolOf(name string) string {
	for _, part := range strings.Split(name, "/") {
		switch part {
		case "HTTP_JSON":
			return "http"
		case "HTTP2_JSON":
			return "h2c"
		}
	}
	return ""
}

var location = regexp.MustCompile(`^\s*[\w.-]+\.go:\d+: ?`)

// message is the text of a test's output lines: their file:line prefixes
// and the --- lines dropped.
func message(output []string) []string {
	var out []string
	for _, l := range output {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- ") {
			continue
		}
		out = append(out, strings.TrimSpace(location.ReplaceAllString(l, "")))
	}
	return out
}

// failReason is the first line of a failure: testify's Error (and the
// line after a bare "Received unexpected error:"), else the last line.
func failReason(output []string) string {
	lines := message(output)
	for i, l := range lines {
		if msg, ok := strings.CutPrefix(l, "Error:"); ok {
			msg = strings.TrimSpace(msg)
			if (msg == "" || strings.HasSuffix(msg, ":")) && i+1 < len(lines) {
				msg = strings.TrimSpace(msg + " " + lines[i+1])
			}
			return clip(msg)
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if !strings.HasPrefix(lines[i], "Error Trace:") && !strings.HasPrefix(lines[i], "Test:") {
			return clip(lines[i])
		}
	}
	return "no message"
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}

// skip reasons, as the suite words them (util_test.go).
const (
	skipCluster    = "needs a cluster"
	skipEnterprise = "needs the enterprise edition"
	skipVersion    = "gated on the server's version (" + graphdb.Version + ")"
	skipJavaScript = "needs JavaScript (v8-version none)"
	skipEnv        = "needs an environment this run does not set up"
	skipOther      = "other"
)

// skipRules classify a skip by its message, first match first; the
// messages are the suite's own (util_test.go and the tests' t.Skip calls).
var skipRules = []struct {
	kind  string
	words []string
}{
	{skipCluster, []string{`requires one of "[cluster`, "cluster mode", "coordinator", "on role", "sharding=flexible", "replication-version=2"}},
	{skipEnterprise, []string{"enterprise", "encryption at rest"}},
	{skipVersion, []string{"version '", "requires arangodb"}},
	{skipJavaScript, []string{"v8", "javascript"}},
	{skipEnv, []string{"requires one of", "test_", "enable_", "not enabled", "toxiproxy", "kubectl", "k8s", "does not exist",
		"requires at least", "superuser", "not launched with", "jwt", "secret file", "disabled"}},
}

func skipReason(output []string) string {
	lines := message(output)
	last := ""
	if len(lines) > 0 {
		last = lines[len(lines)-1]
	}
	l := strings.ToLower(last)
	for _, rule := range skipRules {
		for _, w := range rule.words {
			if strings.Contains(l, strings.ToLower(w)) {
				return rule.kind + ": " + last
			}
		}
	}
	return skipOther + ": " + last
}

type counts struct{ pass, fail, skip int }

func (c *counts) add(outcome string) {
	switch outcome {
	case "pass":
		c.pass++
	case "fail":
		c.fail++
	case "skip":
		c.skip++
	}
}

func (c counts) String() string { return fmt.Sprintf("%d/%d/%d", c.pass, c.fail, c.skip) }

// failing are the units of the groups that failed.
func (rep *report) failing(groups []string) []string {
	var names []string
	for _, u := range rep.units {
		if u.outcome == "fail" && slices.Contains(groups, u.group) {
			names = append(names, u.name)
		}
	}
	return names
}

// share is the percentage of the groups' run units (passed or failed)
// that pass.
func (rep *report) share(groups []string) float64 {
	var c counts
	for _, u := range rep.units {
		if slices.Contains(groups, u.group) {
			c.add(u.outcome)
		}
	}
	if c.pass+c.fail == 0 {
		return 0
	}
	return 100 * float64(c.pass) / float64(c.pass+c.fail)
}

func (rep *report) print(w io.Writer, verbose bool, took time.Duration) {
	byGroup := map[string]*[3]counts{} // all, http, h2c
	var all counts
	for _, u := range rep.units {
		g, ok := byGroup[u.group]
		if !ok {
			g = &[3]counts{}
			byGroup[u.group] = g
		}
		g[0].add(u.outcome)
		all.add(u.outcome)
		switch u.protocol {
		case "http":
			g[1].add(u.outcome)
		case "h2c":
			g[2].add(u.outcome)
		}
	}
	groups := make([]string, 0, len(byGroup))
	for g := range byGroup {
		groups = append(groups, g)
	}
	rank := func(g string) int {
		if i := slices.Index(claimed, g); i >= 0 {
			return i
		}
		return len(claimed)
	}
	sort.Slice(groups, func(i, j int) bool {
		ri, rj := rank(groups[i]), rank(groups[j])
		if ri != rj {
			return ri < rj
		}
		return groups[i] < groups[j]
	})
	fmt.Fprintf(w, "\nunits: tests without subtests, grouped by the file of their top-level test (%s)\n\n", took.Round(time.Second))
	fmt.Fprintf(w, "%-20s %5s %5s %5s   %-14s %-14s\n", "group", "pass", "fail", "skip", "HTTP/1.1 p/f/s", "h2c p/f/s")
	for _, g := range groups {
		c := byGroup[g]
		fmt.Fprintf(w, "%-20s %5d %5d %5d   %-14s %-14s\n", g, c[0].pass, c[0].fail, c[0].skip, c[1], c[2])
	}
	fmt.Fprintf(w, "%-20s %5d %5d %5d\n", "all", all.pass, all.fail, all.skip)

	// Skips by reason, each with the top-level tests it covers.
	reasons := map[string]map[string]bool{}
	skipped := map[string]int{}
	for _, u := range rep.units {
		if u.outcome != "skip" {
			continue
		}
		kind, _, _ := strings.Cut(u.reason, ":")
		top, _, _ := strings.Cut(u.name, "/")
		if reasons[kind] == nil {
			reasons[kind] = map[string]bool{}
		}
		reasons[kind][top] = true
		skipped[kind]++
	}
	if len(reasons) > 0 {
		fmt.Fprintln(w, "\nskipped units, by reason (the tests they belong to):")
		for _, kind := range sortedKeys(reasons) {
			fmt.Fprintf(w, "  %s: %d: %s\n", kind, skipped[kind], strings.Join(sortedKeys(reasons[kind]), ", "))
		}
	}
	if verbose {
		for _, outcome := range []string{"fail", "skip"} {
			fmt.Fprintf(w, "\n%s units:\n", map[string]string{"fail": "failing", "skip": "skipped"}[outcome])
			for _, u := range rep.units {
				if u.outcome == outcome {
					fmt.Fprintf(w, "  [%s] %s: %s\n", u.group, u.name, u.reason)
				}
			}
		}
	}
	var c counts
	for _, u := range rep.units {
		if slices.Contains(claimed, u.group) {
			c.add(u.outcome)
		}
	}
	pct := func(c counts) string {
		if c.pass+c.fail == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f%%", 100*float64(c.pass)/float64(c.pass+c.fail))
	}
	fmt.Fprintf(w, "\nshare (passing of the units run, skips excluded): %s: %d of %d = %s; all groups: %d of %d = %s\n",
		strings.Join(claimed, ", "), c.pass, c.pass+c.fail, pct(c), all.pass, all.pass+all.fail, pct(all))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
