package data

import (
	"context"
	"fmt"
	"testing"
	"testing/fstest"

	"github.com/fabricops/fabric/fabric/lib/botpkg"
)

const manifest = `extension:
  namespace: acme
  type: bot-package
  version: 1.0.0
  description: Acme bots
  default_name: acme-bots
  publisher: Acme
  support_email: ops@acme.test
  config_template: {}
  implementation:
    code: acme.Bots
bots:
`

const module = `
def scale(frame, params, config):
    return frame.with_column("total", lambda r: r["n"] * 10)

def listed(frame, params, config):
    return [dict(r, doubled = r["n"] * 2) for r in frame]

Bots = struct(scale = scale, listed = listed)
`

// TestFixtures: bot-package ut's fixtures are frames, as a worker's
// bots get them.
func TestFixtures(t *testing.T) {
	fsys := fstest.MapFS{
		"fixtures/numbers.json": {Data: []byte(`[{"id": "a", "n": 1}, {"id": "b", "n": 3}]`)},
		"test_acme.star": {Data: []byte(`load("acme.star", "Bots")

def test_scale():
    f = fixture("numbers")
    assert.eq(type(f), "frame")
    out = Bots.scale(f, {}, {})
    assert.eq(out.column("total"), [10, 30])
    assert.eq(out.dtypes["total"], "int64")

def test_fails():
    assert.eq(Bots.listed(fixture("numbers"), {}, {})[0]["doubled"], 3)
`)},
	}
	yml := manifest + "  - {name: scale, bot_type: transform, model_type: api}\n  - {name: listed, bot_type: transform, model_type: api}\n"
	fsys["bots.yml"] = &fstest.MapFile{Data: []byte(yml)}
	fsys["acme.star"] = &fstest.MapFile{Data: []byte(module)}
	res, err := botpkg.RunTests(context.Background(), fsys, botpkg.Limits{}, botFixtures)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res {
		got = append(got, fmt.Sprintf("%s %v", r.Name, r.Err))
	}
	want := "[test_fails test_acme.star:11:14: got 2, want 3 test_scale <nil>]"
	if fmt.Sprint(got) != want {
		t.Fatalf("got %v\nwant %s", got, want)
	}
}
