package botpkg

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fabricops/fabric/fabric/lib/starvalue"
	"go.starlark.net/starlark"
)

// listOf is rows as a list of dicts, a frame in hand as a bot may get it
// (a worker gives it as a frame value: fabric/lib/starframe).
func listOf(cols []string, rows ...[]any) starlark.Value {
	out := make([]starlark.Value, len(rows))
	for i, row := range rows {
		d := starlark.NewDict(len(cols))
		for j, c := range cols {
			_ = d.SetKey(starlark.String(c), starvalue.Scalar(row[j]))
		}
		out[i] = d
	}
	return starlark.NewList(out)
}

// table reads what a bot returned (a list of dicts) as "[columns] [rows]".
func table(t *testing.T, v starlark.Value) string {
	t.Helper()
	if v == starlark.None {
		return "[] []"
	}
	var cols []string
	index := map[string]int{}
	var rows [][]any
	iter := starlark.Iterate(v)
	if iter == nil {
		t.Fatalf("the bot returned a %s", v.Type())
	}
	defer iter.Done()
	var x starlark.Value
	for iter.Next(&x) {
		d := x.(*starlark.Dict)
		row := make([]any, len(cols))
		for _, item := range d.Items() {
			k, _ := starlark.AsString(item[0])
			val, err := starvalue.FromStarlark(item[1])
			if err != nil {
				t.Fatal(err)
			}
			j, ok := index[k]
			if !ok {
				j = len(cols)
				index[k] = j
				cols = append(cols, k)
				row = append(row, nil)
			}
			row[j] = val
		}
		rows = append(rows, row)
	}
	return fmt.Sprint(cols, rows)
}

const manifest = `extension:
  namespace: acme
  type: bot-package
  version: 1.2.0
  description: Acme bots
  default_name: acme-bots
  publisher: Acme
  support_email: ops@acme.test
  config_template:
    hostname: ""
    port: ""
    token: ""
    $secure: [token]
    $mandatory: [hostname]
    $labels: {hostname: Hostname, port: Port, token: Token}
  implementation:
    code: acme.Bots
bots:
  - name: items
    description: Items of the source
    bot_type: source
    model_type: api
    model_parameters:
      - {name: path, type: text, mandatory: false, default: /items}
  - name: enrich
    bot_type: transform
    model_type: api
    model_parameters:
      - {name: factor, type: number, mandatory: true}
      - {name: label, type: boolean, mandatory: false}
`

const module = `
def items(frame, params, config):
    r = http.get(params["path"], headers = {"Authorization": "Bearer " + config["token"]})
    if r.status_code != 200:
        fail("status %d" % r.status_code)
    return r.json()

def enrich(frame, params, config):
    out = []
    for row in frame:
        row["total"] = row["n"] * params["factor"]
        out.append(row)
    return out

def spin(frame, params, config):
    while True:
        pass

def hog(frame, params, config):
    keep = []
    for i in range(10000000):
        keep.append("x" * 100000 + str(i))
    return keep

def big(frame, params, config):
    return [{"a": "x" * 1000000000}]

def other(frame, params, config):
    return http.get("http://127.0.0.2:1/").json()

def reader(frame, params, config):
    return [{"text": file.read("/etc/passwd")}]

def leak(frame, params, config):
    fail("token is " + config["token"])

Bots = struct(items = items, enrich = enrich, spin = spin, hog = hog, big = big, other = other, reader = reader, leak = leak)
`

func pkgFS(yml, mod string) fstest.MapFS {
	return fstest.MapFS{
		"bots.yml":  {Data: []byte(yml)},
		"acme.star": {Data: []byte(mod)},
	}
}

// withBots adds bots (with no parameters) to the manifest.
func withBots(names ...string) string {
	s := manifest
	for _, n := range names {
		s += fmt.Sprintf("  - {name: %s, bot_type: transform, model_type: api}\n", n)
	}
	return s
}

func TestRunSourceAndTransform(t *testing.T) {
	var gotAuth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth = r.Header.Get("Authorization")
		if r.URL.Path != "/items" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, `[{"id": "a", "n": 2}, {"id": "b", "n": 3}]`)
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	config := map[string]any{"hostname": u.Hostname(), "port": u.Port(), "token": "s3cr3t-token"}
	p, err := Load(context.Background(), pkgFS(manifest, module), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	src, err := p.Run(context.Background(), Call{Bot: "items", Config: config})
	if err != nil {
		t.Fatal(err)
	}
	if gotAuth != "Bearer s3cr3t-token" {
		t.Fatalf("the server got %q", gotAuth)
	}
	out, err := p.Run(context.Background(), Call{Bot: "enrich", In: src, Params: map[string]string{"factor": "10"}, Config: config})
	if err != nil {
		t.Fatal(err)
	}
	if got := table(t, out); got != "[id n total] [[a 2 20] [b 3 30]]" {
		t.Fatalf("got %s", got)
	}
}

func TestRunRefusals(t *testing.T) {
	p, err := Load(context.Background(), pkgFS(withBots("spin", "hog", "big", "other", "reader", "leak"), module), Limits{Steps: 1_000_000})
	if err != nil {
		t.Fatal(err)
	}
	config := map[string]any{"hostname": "127.0.0.1", "port": "9", "token": "s3cr3t-token"}
	for _, tc := range []struct {
		name, bot string
		params    map[string]string
		mem       int64
		want      string
	}{
		{"endless loop", "spin", nil, 0, "acme.star:15:1: the step limit of 1000000 steps was reached"},
		{"unbounded allocation", "hog", nil, 64 << 20, "the memory limit of 64 MB was reached"},
		{"one huge value", "big", nil, 0, "acme.star:26:23: * would make a value of 1000000000 bytes, over the value limit"},
		{"another host", "other", nil, 0, "the bot may reach only http://127.0.0.1:9, the source's configured host (refused http://127.0.0.2:1)"},
		{"a file", "reader", nil, 0, "acme.star:32:31: file.read: refused: a bot has no access to the host's files"},
		{"secret in an error", "leak", nil, 0, "token is ***"},
		{"mandatory parameter", "enrich", nil, 0, "the parameter factor is mandatory"},
		{"unknown parameter", "enrich", map[string]string{"factor": "1", "x": "1"}, 0, "the bot has no parameter x"},
		{"parameter type", "enrich", map[string]string{"factor": "ten"}, 0, `the parameter factor is "ten", not a number`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			steps := uint64(0)
			if tc.bot == "hog" {
				steps = 1 << 40
			}
			_, err := p.Run(context.Background(), Call{Bot: tc.bot, Params: tc.params, Config: config, Memory: tc.mem, Steps: steps})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
			if !strings.HasPrefix(err.Error(), "@acme:"+tc.bot+" (package acme-bots 1.2.0): ") {
				t.Fatalf("the error does not name the package and bot: %v", err)
			}
			if strings.Contains(err.Error(), "s3cr3t") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("the error shows the secret or is not one line: %v", err)
			}
		})
	}
}

func TestRunCancelled(t *testing.T) {
	p, err := Load(context.Background(), pkgFS(withBots("spin"), module), Limits{Steps: 1 << 50})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = p.Run(ctx, Call{Bot: "spin", Config: map[string]any{"hostname": "h"}})
	if err == nil || !strings.Contains(err.Error(), "the time limit was reached") {
		t.Fatalf("got %v", err)
	}
}

func TestRunNoSource(t *testing.T) {
	yml := strings.Replace(withBots("other"), "$mandatory: [hostname]", "$mandatory: []", 1)
	p, err := Load(context.Background(), pkgFS(yml, module), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Run(context.Background(), Call{Bot: "enrich", Params: map[string]string{"factor": "2"}})
	if err != nil || table(t, out) != "[] []" {
		t.Fatalf("got %v, %v", out, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Run(context.Background(), Call{Bot: "other"}); err == nil || !strings.Contains(err.Error(), "may reach no host") {
		t.Fatalf("got %v", err)
	}
	p2, _ := Load(context.Background(), pkgFS(manifest, module), Limits{})
	if _, err := p2.Run(context.Background(), Call{Bot: "enrich", Params: map[string]string{"factor": "2"}}); err == nil || !strings.Contains(err.Error(), "requires hostname: name a source") {
		t.Fatalf("got %v", err)
	}
}

func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		yml, mod string
		extra    map[string]string
		want     string
	}{
		{"missing field", strings.Replace(manifest, "  namespace: acme\n", "", 1), module, nil, "bots.yml: extension.namespace is missing"},
		{"missing bot field", strings.Replace(manifest, "    bot_type: transform\n", "", 1), module, nil, "bots.yml: bots[2].bot_type is missing"},
		{"bad version", strings.Replace(manifest, "1.2.0", "2022_01_01", 1), module, nil, `extension.version "2022_01_01" is not dotted numbers`},
		{"unknown field", strings.Replace(manifest, "  publisher: Acme\n", "  publisherr: Acme\n", 1), module, nil, "field publisherr not found"},
		{"syntax", manifest, module + "\ndef broken(:\n", nil, "acme.star:39:13: got ':', want ')'"},
		{"undefined name", manifest, module + "\nx = nowhere\n", nil, "acme.star:39:5: undefined: nowhere"},
		{"not defined", manifest, strings.Replace(module, "enrich = enrich, ", "", 1), nil, "bots.yml: bot enrich: not defined: the implementation value has no enrich"},
		{"no module", strings.Replace(manifest, "acme.Bots", "other.Bots", 1), module, nil, "names the module other.star, which the package does not have"},
		{"no value", strings.Replace(manifest, "acme.Bots", "acme.Nope", 1), module, nil, "acme.star defines no Nope"},
		{"wrong arity", manifest, strings.Replace(module, "def enrich(frame, params, config)", "def enrich(frame, params)", 1), nil, "enrich takes 2 parameters, not (frame, params, config)"},
		{"reserved name", manifest, module + "\n_fabric_binary = 1\n", nil, "names starting with _fabric_ are reserved"},
		{"load outside", manifest, "load('../x.star', 'y')\n" + module, nil, `load("../x.star"): a bot package loads only its own .star modules`},
		{"loop at load", manifest, module + "\nwhile True:\n    pass\n", nil, "the step limit of"},
		{"other module error", manifest, "load('util.star', 'f')\n" + module, map[string]string{"util.star": "def f(:\n"}, "util.star:1:8:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := pkgFS(tc.yml, tc.mod)
			for k, v := range tc.extra {
				fsys[k] = &fstest.MapFile{Data: []byte(v)}
			}
			_, err := Load(context.Background(), fsys, Limits{Steps: 100_000})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("not one line: %q", err)
			}
		})
	}
}

func TestLoadModules(t *testing.T) {
	fsys := pkgFS(manifest, "load('lib/util.star', 'double')\n"+strings.Replace(module, `row["n"] * params["factor"]`, `double(row["n"]) * params["factor"]`, 1))
	fsys["lib/util.star"] = &fstest.MapFile{Data: []byte("def double(x):\n    return x + x\n")}
	p, err := Load(context.Background(), fsys, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Run(context.Background(), Call{Bot: "enrich", In: listOf([]string{"n"}, []any{int64(2)}),
		Params: map[string]string{"factor": "3"}, Config: map[string]any{"hostname": "h"}})
	if err != nil || table(t, out) != "[n total] [[2 12]]" {
		t.Fatalf("got %v, %v", out, err)
	}
}

func TestCompareVersions(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{{"1.0.0", "1.0.0", 0}, {"1.0", "1.0.0", 0}, {"1.2.0", "1.10.0", -1}, {"22.11.9", "22.11.10", -1}, {"2", "1.9.9", 1}} {
		if got := CompareVersions(tc.a, tc.b); got != tc.want {
			t.Errorf("CompareVersions(%s, %s) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(manifest))
	f.Add([]byte(withBots("spin")))
	f.Add([]byte("extension: {namespace: [a, *b]}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseManifest(data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("not one line: %q", err)
			}
			return
		}
		if err := m.Check(); err != nil {
			t.Fatalf("a parsed manifest does not check: %v", err)
		}
	})
}

func TestGuards(t *testing.T) {
	mod := `
def ok(frame, params, config):
    s = "ab" * 3 + "c"
    l = [1] * 2 + [3]
    l += [4]
    s += "%d" % 5
    n = 2
    n *= 21
    d = {"k": []}
    d["k"] += [1]
    return [{"s": s, "l": str(l), "n": n, "j": "-".join(["a", "b"]), "r": "aXa".replace("X", "b"), "f": "{}!".format(1), "k": str(d["k"])}]

def grow_aug(frame, params, config):
    s = "x" * 1000
    for i in range(40):
        s += s
    return []

def grow_join(frame, params, config):
    s = "x" * 1000000
    return [{"a": s.join([s] * 100)}]

def grow_range(frame, params, config):
    return [{"n": len(list(range(100000000)))}]

Bots = struct(ok = ok, grow_aug = grow_aug, grow_join = grow_join, grow_range = grow_range)
`
	yml := strings.Replace(manifest, "$mandatory: [hostname]", "$mandatory: []", 1)
	yml = yml[:strings.Index(yml, "bots:\n")] + "bots:\n"
	for _, b := range []string{"ok", "grow_aug", "grow_join", "grow_range"} {
		yml += "  - {name: " + strings.ReplaceAll(b, "_", "-") + ", bot_type: transform, model_type: api}\n"
	}
	p, err := Load(context.Background(), pkgFS(yml, mod), Limits{Value: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Run(context.Background(), Call{Bot: "ok"})
	if err != nil {
		t.Fatal(err)
	}
	if got := table(t, out); !strings.HasSuffix(got, "[[abababc5 [1, 1, 3, 4] 42 a-b aba 1! [1]]]") {
		t.Fatalf("got %s", got)
	}
	for bot, want := range map[string]string{
		"grow-aug":   "acme.star:16:11: += would make a value of",
		"grow-join":  "acme.star:21:25: .join would make a value of",
		"grow-range": "a range of 100000000 elements is over the limit",
	} {
		if _, err := p.Run(context.Background(), Call{Bot: bot}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", bot, err, want)
		}
	}
}

func TestHTTPPolicy(t *testing.T) {
	p := newHTTPPolicy(map[string]any{"hostname": "api.acme.test", "port": 8443, "scheme": "https"}, nil)
	for raw, want := range map[string]string{
		"https://api.acme.test:8443/x": "",
		"https://API.acme.test:8443/x": "",
		"http://api.acme.test:8443/x":  "refused http://api.acme.test:8443",
		"https://api.acme.test/x":      "refused https://api.acme.test",
		"https://evil.test:8443/x":     "refused https://evil.test:8443",
		"file:///etc/passwd":           "refused file://",
	} {
		u, _ := url.Parse(raw)
		err := p.allow(u)
		if (want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("%s: got %v, want %q", raw, err, want)
		}
	}
}

func TestRunTests(t *testing.T) {
	fsys := pkgFS(manifest, module)
	fsys["fixtures/numbers.json"] = &fstest.MapFile{Data: []byte(`[{"n": 1}, {"n": 4}]`)}
	fsys["test_acme.star"] = &fstest.MapFile{Data: []byte(`load("acme.star", "Bots")

def test_enrich():
    rows = Bots.enrich(fixture("numbers"), {"factor": 2}, {})
    assert.eq([r["total"] for r in rows], [2, 8])

def test_wrong():
    assert.eq(1, 2, "one is two")

def helper():
    pass
`)}
	res, err := RunTests(context.Background(), fsys, Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(res)
	if len(res) != 2 || res[0].Name != "test_enrich" || res[0].Err != nil || res[1].Err == nil ||
		res[1].Err.Error() != "test_acme.star:8:14: one is two: got 1, want 2" {
		t.Fatalf("got %s", got)
	}
}

func TestPackUnpack(t *testing.T) {
	fsys := pkgFS(manifest, module)
	fsys[".git/x"] = &fstest.MapFile{Data: []byte("x")}
	fsys["dist/old.tar.gz"] = &fstest.MapFile{Data: []byte("x")}
	data, err := Pack(fsys, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	again, _ := Pack(fsys, Limits{})
	if string(again) != string(data) {
		t.Fatal("two archives of one package differ")
	}
	back, err := Unpack(strings.NewReader(string(data)), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := Load(context.Background(), back, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(p.Files) != "[acme.star bots.yml]" {
		t.Fatalf("files %v", p.Files)
	}
	if _, err := Unpack(strings.NewReader("not gzip"), Limits{}); err == nil || !strings.Contains(err.Error(), "not a .tar.gz") {
		t.Fatalf("got %v", err)
	}
}

func TestReservedNamespace(t *testing.T) {
	_, err := ParseManifest([]byte(strings.Replace(manifest, "namespace: acme", "namespace: dm", 1)))
	if err == nil || err.Error() != `bots.yml: extension.namespace "dm" is the fabric's own bots'` {
		t.Fatalf("got %v", err)
	}
}

func TestCheckCredentials(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer good-token" {
			http.Error(w, "no", http.StatusUnauthorized)
		}
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	mod := module + `
def check(config):
    r = http.get("/", headers = {"Authorization": "Bearer " + config["token"]})
    return True if r.ok else "the token %s is refused (%d)" % (config["token"], r.status_code)

Bots2 = struct(items = items, enrich = enrich, check_credentials = check)
`
	p, err := Load(context.Background(), pkgFS(strings.Replace(manifest, "acme.Bots", "acme.Bots2", 1), mod), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	config := map[string]any{"hostname": u.Hostname(), "port": u.Port(), "token": "good-token"}
	if err := p.CheckCredentials(context.Background(), config); err != nil || !p.HasCheck() {
		t.Fatalf("good: %v", err)
	}
	config["token"] = "bad-token"
	if err := p.CheckCredentials(context.Background(), config); err == nil || err.Error() != "bot package acme-bots 1.2.0: the credential check failed: the token *** is refused (401)" {
		t.Fatalf("bad: %v", err)
	}
	if err := p.CheckCredentials(context.Background(), map[string]any{}); err == nil || !strings.Contains(err.Error(), "has no hostname, which the package requires") {
		t.Fatalf("no host: %v", err)
	}
}

// TestLoadLibraries: a module loads a module of an installed library as
// @lib/NAME//path.star; a library that is not installed, a module it
// does not have and a path leaving it are one line each.
func TestLoadLibraries(t *testing.T) {
	libs := Libraries{"fabric_math": fstest.MapFS{"fabric_math/ops.star": {Data: []byte("def double(x):\n    return x + x\n")}}}
	use := func(path string) fstest.MapFS {
		return pkgFS(manifest, "load('"+path+"', 'double')\n"+strings.Replace(module, `row["n"] * params["factor"]`, `double(row["n"]) * params["factor"]`, 1))
	}
	p, err := LoadWith(context.Background(), use("@lib/fabric_math//fabric_math/ops.star"), Limits{}, libs)
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Run(context.Background(), Call{Bot: "enrich", In: listOf([]string{"n"}, []any{int64(2)}),
		Params: map[string]string{"factor": "3"}, Config: map[string]any{"hostname": "h"}})
	if err != nil || table(t, out) != "[n total] [[2 12]]" {
		t.Fatalf("got %v, %v", out, err)
	}
	for _, tc := range []struct{ path, want string }{
		{"@lib/fabric_stats//x.star", "no library fabric_stats is installed on this pod"},
		{"@lib/fabric_math//fabric_math/nope.star", "library fabric_math has no module fabric_math/nope.star"},
		{"@lib/fabric_math//../acme.star", "a library's module is loaded as @lib/NAME//path/to/module.star"},
		{"@lib/fabric_math/ops.star", "a library's module is loaded as @lib/NAME//path/to/module.star"},
	} {
		_, err := LoadWith(context.Background(), use(tc.path), Limits{}, libs)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("load(%q): %v, want %q", tc.path, err, tc.want)
		}
	}
	// Checked where the libraries are not (add, build, ut): the names
	// are stand-ins, failing when called.
	p, err = Load(context.Background(), use("@lib/fabric_math//fabric_math/ops.star"), Limits{})
	if err != nil {
		t.Fatalf("checking a package that loads a library: %v", err)
	}
	if _, err := p.Run(context.Background(), Call{Bot: "enrich", In: listOf([]string{"n"}, []any{int64(2)}),
		Params: map[string]string{"factor": "3"}, Config: map[string]any{"hostname": "h"}}); err == nil || !strings.Contains(err.Error(), "double comes from library fabric_math") {
		t.Errorf("a stand-in called: %v", err)
	}
	if _, err := LoadWith(context.Background(), use("@lib/fabric_math//fabric_math/ops.star"), Limits{}, Libraries{}); err == nil || !strings.Contains(err.Error(), "no library fabric_math is installed") {
		t.Errorf("on a pod without libraries: %v", err)
	}
}
