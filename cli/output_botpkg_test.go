package cli

import (
	"testing"
)

// TestOutputBotPackageLocal: the bot-package commands that need no
// fabric: generate -> ut, then a failing test and a package that does not
// load.
func TestOutputBotPackageLocal(t *testing.T) {
	s := newSession(t, "bot-package-ut")
	dir := s.vars["DIR"]
	answers := "fetch-items\nsource\n1\ntoken\ntext\nyes\nenrich\ntransform\n1\nfactor\nnumber\nno\n"
	s.steps(
		step{cmd: "bot-package generate --namespace acme --name acme-bots --bots 2 --output_dir $DIR/acme", stdin: answers, setup: true},
		step{cmd: "bot-package ut --dir $DIR/acme"},
		step{cmd: "bot-package ut --dir $DIR/acme --json"},
		step{do: func() {
			write(t, dir, "acme/test_more.star", "load(\"acme.star\", \"Bots\")\n\ndef test_total():\n    rows = Bots.enrich([{\"n\": 2}], {}, {})\n    assert.eq(rows[0][\"n\"], 3)\n")
		}},
		step{cmd: "bot-package ut --dir $DIR/acme", code: 1},
		step{do: func() { write(t, dir, "acme/acme.star", "def fetch_items(frame, params, config):\n    return [}\n") }},
		step{cmd: "bot-package ut --dir $DIR/acme", code: 1},
		step{do: func() {
			write(t, dir, "acme/acme.star", "def fetch_items(frame, params, config):\n    return []\n\nBots = struct(fetch_items = fetch_items)\n")
		}},
		step{cmd: "bot-package ut --dir $DIR/acme", code: 1},
		step{cmd: "bot-package ut --dir $DIR/none", code: 1},
	)
}
