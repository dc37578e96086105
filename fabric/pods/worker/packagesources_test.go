package worker_test

import (
	"fmt"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/infra/botsources"
	"github.com/fabricops/fabric/fabric/infra/secret"
)

const notesYML = `extension:
  namespace: notes
  type: bot-package
  version: 1.0.0
  description: Notes
  default_name: notes-bots
  publisher: Acme
  support_email: ""
  config_template:
    hostname: ""
    $mandatory: [hostname]
  implementation: {code: notes.Bots}
bots:
  - {name: list, description: Lists notes, bot_type: source, model_type: api}
  - name: find
    description: Finds notes
    bot_type: source
    model_type: api
    model_parameters:
      - {name: query, type: text, mandatory: false}
  - {name: tidy, description: Tidies notes, bot_type: transform, model_type: api}
`

const notesStar = `
def rows(frame, params, config):
    return []

Bots = struct(list = rows, find = rows, tidy = rows)
`

// TestBotsBySourcePackages: bots-by-source lists the bots of a bot
// package under each of its configured sources (@ns:bot and *ns:bot, and
// #ns:bot for the bot with a text parameter query), and not those of a
// package that no source configures; --sources keeps a source's bots.
func TestBotsBySourcePackages(t *testing.T) {
	pf := startPackageFabric(t, 2*time.Minute, fstest.MapFS{"bots.yml": {Data: []byte(notesYML)}, "notes.star": {Data: []byte(notesStar)}},
		fstest.MapFS{"bots.yml": {Data: []byte(mathYML)}, "calc.star": {Data: []byte(mathStar)}})
	c, ctx, st, cat := pf.c, pf.ctx, pf.st, pf.cat
	for _, name := range []string{"notes-a", "notes-b"} {
		if _, err := (&botsources.Sources{Catalog: cat, Secrets: &secret.Store{Store: st}}).Put(ctx, api.BotSource{Name: name, Package: "notes-bots",
			Config: map[string]any{"hostname": "notes.example"}}); err != nil {
			t.Fatal(err)
		}
	}

	notes := func(src string) string {
		return fmt.Sprint([][]any{
			{"#notes:find", "source", "Finds notes (a CFXQL query pushed down to its source, its rows filtered by it)", src},
			{"*notes:find", "source", "Finds notes (its rows filtered by a CFXQL query)", src},
			{"*notes:list", "source", "Lists notes (its rows filtered by a CFXQL query)", src},
			{"*notes:tidy", "transform", "Tidies notes (its rows filtered by a CFXQL query)", src},
			{"@notes:find", "source", "Finds notes", src},
			{"@notes:list", "source", "Lists notes", src},
			{"@notes:tidy", "transform", "Tidies notes", src},
		})
	}
	for _, tc := range []struct{ sources, want string }{
		{"notes-b", notes("notes-b")},
		{"notes-a", notes("notes-a")},
		{"calc-bots", "[]"},
		{"nowhere", "[]"},
	} {
		t.Run(tc.sources, func(t *testing.T) {
			resp, err := c.Run(ctx, api.RunRequest{Pipeline: "bots", Steps: []api.PipelineStep{{Tag: api.BotBotsBySource, Query: "sources = '" + tc.sources + "'"}}},
				client.Placement{Site: "local"})
			if err != nil {
				t.Fatal(err)
			}
			j, err := c.Wait(ctx, resp.JobID, time.Minute, nil)
			if err != nil {
				t.Fatal(err)
			}
			if j.Status != api.JobCompleted || j.SmallOutput == nil {
				t.Fatalf("%s %s", j.Status, j.Reason)
			}
			if fmt.Sprint(j.SmallOutput.Columns) != "[Bot Type Description Source]" {
				t.Fatalf("columns %v", j.SmallOutput.Columns)
			}
			rows := j.SmallOutput.Rows
			if rows == nil {
				rows = [][]any{}
			}
			if got := fmt.Sprint(rows); got != tc.want {
				t.Fatalf("rows\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}
