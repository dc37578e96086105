package worker

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/fabricops/fabric/fabric/lib/botpkg"
	"github.com/fabricops/fabric/fabric/lib/frame"
)

const framesManifest = `extension:
  namespace: acme
  type: bot-package
  version: 1.0.0
  description: Acme bots
  default_name: acme-bots
  publisher: Acme
  support_email: ops@acme.test
  config_template:
    token: ""
    $secure: [token]
  implementation:
    code: acme.Bots
bots:
`

const framesModule = `
def scale(frame, params, config):
    return frame.with_column("total", lambda r: r["n"] * 10)

def listed(frame, params, config):
    return [dict(r, doubled = r["n"] * 2) for r in frame]

def same(frame, params, config):
    return frame

def picked(frame, params, config):
    return frame.filter("n > 2").select(["id"]).sort("id", desc = True)

def nothing(frame, params, config):
    return None

def text(frame, params, config):
    return "rows"

def leak(frame, params, config):
    return [{"said": "the token is " + config["token"]}]

def talk(frame, params, config):
    print("rows in hand:", len(frame), "token", config["token"])
    return frame

def writes(frame, params, config):
    return frame.write("/tmp/x.csv")

Bots = struct(scale = scale, listed = listed, same = same, picked = picked, nothing = nothing, text = text,
    leak = leak, talk = talk, writes = writes)
`

func loadBots(t *testing.T, l botpkg.Limits) *botpkg.Package {
	t.Helper()
	yml := framesManifest
	for _, b := range []string{"scale", "listed", "same", "picked", "nothing", "text", "leak", "talk", "writes"} {
		yml += "  - {name: " + b + ", bot_type: transform, model_type: api}\n"
	}
	fsys := fstest.MapFS{"bots.yml": {Data: []byte(yml)}, "acme.star": {Data: []byte(framesModule)}}
	p, err := botpkg.Load(context.Background(), fsys, l)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func sampleFrame(t *testing.T) *frame.Frame {
	t.Helper()
	f, err := frame.FromRows([]string{"id", "n"}, [][]any{{"a", int64(1)}, {"b", int64(3)}, {"c", int64(5)}})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func dumpFrame(f *frame.Frame) string {
	rows := make([][]any, f.NumRows())
	for i := range rows {
		rows[i] = f.Row(i)
	}
	return fmt.Sprint(f.Columns(), rows)
}

// TestRunBot: a bot gets the frame in hand as the shell's frame value and
// returns a frame (the one it got, without a copy, or a new one), a list
// of dicts or None; anything else, too many rows or a file method is one
// line naming the bot; a secret in its rows or its prints is redacted.
func TestRunBot(t *testing.T) {
	config := map[string]any{"token": "s3cr3t-token"}
	for _, tc := range []struct {
		bot, want, fails string
		in               bool
		rows             int
	}{
		{bot: "scale", in: true, want: "[id n total] [[a 1 10] [b 3 30] [c 5 50]]"},
		{bot: "listed", in: true, want: "[id n doubled] [[a 1 2] [b 3 6] [c 5 10]]"},
		{bot: "picked", in: true, want: "[id] [[c] [b]]"},
		{bot: "same", in: false, want: "[] []"},
		{bot: "nothing", in: true, want: "[] []"},
		{bot: "leak", want: "[said] [[the token is ***]]"},
		{bot: "text", fails: "@acme:text (package acme-bots 1.0.0): the bot returned a string, not a frame or a list of dicts"},
		{bot: "listed", in: true, rows: 2, fails: "the bot returned 3 rows, over the limit of 2"},
		{bot: "scale", in: true, rows: 2, fails: "the bot returned 3 rows, over the limit of 2"},
		{bot: "writes", in: true, fails: "frame has no .write field or method"},
	} {
		t.Run(tc.bot, func(t *testing.T) {
			p := loadBots(t, botpkg.Limits{Rows: tc.rows})
			var in *frame.Frame
			if tc.in {
				in = sampleFrame(t)
			}
			out, err := runBot(context.Background(), p, botpkg.Call{Bot: tc.bot, Config: config}, in)
			if tc.fails != "" {
				if err == nil || !strings.Contains(err.Error(), tc.fails) {
					t.Fatalf("got %v, want an error with %q", err, tc.fails)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := dumpFrame(out); got != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
	p := loadBots(t, botpkg.Limits{})
	in := sampleFrame(t)
	var printed []string
	out, err := runBot(context.Background(), p, botpkg.Call{Bot: "talk", Config: config, Print: func(s string) { printed = append(printed, s) }}, in)
	if err != nil {
		t.Fatal(err)
	}
	if out != in {
		t.Error("a bot returning its frame made a copy of it")
	}
	if fmt.Sprint(printed) != "[rows in hand: 3 token ***]" {
		t.Errorf("printed %q", printed)
	}
}
