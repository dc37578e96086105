package cli

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/pods/pod"
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
			write(t, dir, "acme/test_more.star", "load(\"acme.star\", \"Bots\")\n\ndef test_total():\n    rows = Bots.enrich(fixture([{\"n\": 2}]), {}, {})\n    assert.eq(rows[0][\"n\"], 3)\n")
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

// TestOutputBotPackages: the catalog's commands against a fabric: add
// (and its refusals, one line each), list, get, build, delete.
func TestOutputBotPackages(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	s := newSession(t, "bot-package-add", "bot-package-list", "bot-package-get", "bot-package-build", "bot-package-delete")
	dir := s.vars["DIR"]
	answers := "fetch-items\nsource\n0\nenrich\ntransform\n0\n"
	s.setup(answers, s.expand("bot-package generate --namespace acme --name acme-bots --version 1.2.0 --bots 2 --output_dir $DIR/acme"))
	copyPkg := func(to string, edit func(name, text string) string) {
		for _, name := range []string{"bots.yml", "acme.star", "test_acme.star"} {
			data, err := os.ReadFile(filepath.Join(dir, "acme", name))
			if err != nil {
				t.Fatal(err)
			}
			write(t, dir, filepath.Join(to, name), edit(name, string(data)))
		}
	}
	copyPkg("missing-field", func(name, text string) string {
		if name == "bots.yml" {
			return strings.Replace(text, "  namespace: acme\n", "", 1)
		}
		return text
	})
	copyPkg("no-compile", func(name, text string) string {
		if name == "acme.star" {
			return strings.Replace(text, "    return frame.with_column(", "    return frame.with_column((", 1)
		}
		return text
	})
	copyPkg("undefined", func(name, text string) string {
		if name == "acme.star" {
			return strings.Replace(text, ", enrich = enrich", "", 1)
		}
		return text
	})
	copyPkg("failing", func(name, text string) string {
		if name == "test_acme.star" {
			return strings.Replace(text, "[1, 2]", "[2, 1]", 1)
		}
		return text
	})

	s.steps(
		step{cmd: "bot-package add --dir $DIR/acme"},
		step{cmd: "bot-package add --dir $DIR/acme", code: 1},
		step{cmd: "bot-package add --dir $DIR/acme --overwrite"},
		step{cmd: "bot-package add --dir $DIR/missing-field", code: 1},
		step{cmd: "bot-package add --dir $DIR/no-compile", code: 1},
		step{cmd: "bot-package add --dir $DIR/undefined", code: 1},
		step{cmd: "bot-package add --file $DIR/none.tar.gz", code: 1},
		step{cmd: "bot-package add", code: 2},
		step{cmd: "bot-package list"},
		step{cmd: "bot-package list --bogus", code: 2},
		step{cmd: "bot-package get --name acme-bots"},
		step{cmd: "bot-package get --name nope", code: 1},
		step{cmd: "bot-package build --dir $DIR/acme"},
		step{cmd: "bot-package build --dir $DIR/failing", code: 1},
		step{cmd: "bot-package list --json"},
		step{cmd: "bot-package add --file $DIR/acme/dist/acme-bots-1.2.0.tar.gz --overwrite"},
		step{do: func() { write(t, dir, "items.pipeline", "@acme:fetch-items\n--> @dm:head n = 5\n") }},
		step{do: func() {
			out := s.setup("", s.expand("pipeline add --file $DIR/items.pipeline"))
			s.vars["PV"] = regexp.MustCompile(`[0-9]{4}_[0-9]{2}_[0-9]{2}_[0-9]+`).FindString(out)
		}},
		step{cmd: "bot-package delete --name acme-bots", code: 1},
		step{cmd: "pipeline delete --name items --version $PV", setup: true},
		step{cmd: "bot-package delete --name acme-bots --version 9.9.9", code: 1},
		step{cmd: "bot-package delete --name acme-bots"},
		step{cmd: "bot-package delete --name acme-bots", code: 1},
		step{cmd: "bot-package list"},
	)
}

// TestOutputBotPackageRuntimes: list-runtimes, a row per worker with the
// Starlark dialect it advertises; a worker pod that advertises none (an
// older build: a bare pod of type worker here) shows not available.
func TestOutputBotPackageRuntimes(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer, api.Worker}})
	s := newSession(t, "bot-package-list-runtimes")
	s.steps(
		step{cmd: "bot-package list-runtimes"},
		step{cmd: "bot-package list-runtimes --json"},
		step{cmd: "bot-package list-runtimes --yaml", code: 2},
		step{do: func() {
			c, err := client.Connect(f.Configs["a"])
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(c.Close)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			p, err := pod.Start(ctx, c.Conn(), pod.Spec{Type: api.Worker, Category: api.CategoryApp, Site: "older", Tenant: "a", BuildTag: "test"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(p.Stop)
		}},
		step{cmd: "bot-package list-runtimes"},
	)
}

// TestOutputBotSources: add-source (the $secure value sealed, never
// shown; a missing mandatory key, an unknown key, an unknown package
// refused), list-sources, and delete-source (the sealed secret goes with
// the source).
func TestOutputBotSources(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	s := newSession(t, "bot-package-add-source", "bot-package-list-sources", "bot-package-delete-source")
	dir := s.vars["DIR"]
	s.setup("items\nsource\n0\n", s.expand("bot-package generate --namespace acme --name acme-bots --output_dir $DIR/acme"))
	s.setup("", s.expand("bot-package add --dir $DIR/acme"))
	write(t, dir, "api.yaml", "hostname: 127.0.0.1\nport: 8080\nsecret: hunter2-token\n")
	write(t, dir, "nohost.yaml", "port: 8080\n")
	write(t, dir, "odd.yaml", "hostname: h\ncolour: blue\n")
	s.sc.Literal("hunter2-token", "<LEAKED>")
	s.steps(
		step{cmd: "bot-package add-source --name acme-api --package acme-bots --config $DIR/api.yaml"},
		step{cmd: "bot-package add-source --name x --package acme-bots --config $DIR/nohost.yaml", code: 1},
		step{cmd: "bot-package add-source --name x --package acme-bots --config $DIR/odd.yaml", code: 1},
		step{cmd: "bot-package add-source --name x --package nope --config $DIR/api.yaml", code: 1},
		step{cmd: "bot-package list-sources"},
		step{cmd: "bot-package list-sources --json"},
		step{cmd: "bot-package list-sources --yaml", code: 2},
	)
	sealed := func() bool {
		out, _, _ := run(t, "", "secret", "list", "--json")
		return strings.Contains(out, "bot-source.acme-api.secret")
	}
	if !sealed() {
		t.Fatal("add-source sealed no secret")
	}
	s.steps(
		step{cmd: "bot-package delete-source --name acme-api"},
		step{cmd: "bot-package delete-source --name acme-api", code: 1},
		step{cmd: "bot-package delete-source", code: 2},
		step{cmd: "bot-package list-sources"},
	)
	if sealed() {
		t.Error("delete-source left the secret it sealed")
	}
}
