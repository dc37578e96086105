package cli

import (
	"testing"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
)

// TestOutputPipelines: stored pipelines and the bots' documentation.
func TestOutputPipelines(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	s := newSession(t, "pipeline-add", "pipeline-list", "pipeline-get", "pipeline-get-versions", "pipeline-delete",
		"pipeline-convert-to-json", "pipeline-bots")
	dir := s.vars["DIR"]
	s.vars["V1"], s.vars["V2"] = today()+"_1", today()+"_2"
	write(t, dir, "hot.yaml", hotHostsYAML)
	write(t, dir, "cpu-watch.pipeline", hotHostsText)
	write(t, dir, "x.json", pipelineJSON)
	write(t, dir, "bad.yaml", "name: x\ndata:\n  sequence:\n    - tag: '@dm:empty'\n      query: x: y\n")
	write(t, dir, "field.yaml", "name: x\ndata:\n  sequence:\n    - tag: dm:empty\n")
	write(t, dir, "bad.json", "{\"name\": \"x\",\n \"data\": }")
	write(t, dir, "bad.txt", "@dm:empty\n  --> @dm:head n = 1\n  -->\n")
	write(t, dir, "quote.txt", "@dm:empty\n  --> @dm:eval x = 'open\n")
	write(t, dir, "empty.yaml", "")

	s.steps(
		step{cmd: "pipeline add --file $DIR/hot.yaml"},
		step{cmd: "pipeline add --file $DIR/hot.yaml"},
		step{cmd: "pipeline add --file $DIR/cpu-watch.pipeline"},
		step{cmd: "pipeline add --file $DIR/x.json --name hot-draft --pipetype Draft"},
		step{cmd: "pipeline add --file $DIR/missing.yaml", code: 1},
		step{cmd: "pipeline add --file $DIR/bad.yaml", code: 1},
		step{cmd: "pipeline add --file $DIR/field.yaml", code: 1},
		step{cmd: "pipeline add --file $DIR/bad.json", code: 1},
		step{cmd: "pipeline add --file $DIR/bad.txt", code: 1},
		step{cmd: "pipeline add --file $DIR/quote.txt", code: 1},
		step{cmd: "pipeline add --file $DIR/empty.yaml", code: 1},
		step{cmd: "pipeline add --file $DIR/hot.yaml --pipetype final", code: 2},

		step{cmd: "pipeline list"},
		step{cmd: "pipeline-list --json"},
		step{cmd: "pipeline get-versions --name hot-hosts"},
		step{cmd: "pipeline get-versions --name cpu-watch --json"},
		step{cmd: "pipeline get-versions --name nope", code: 1},

		step{cmd: "pipeline get --name hot-hosts --version $V1"},
		step{cmd: "pipeline get --name cpu-watch --version $V1 --json"},
		step{cmd: "pipeline get --name hot-hosts --version $V2 --tofile $DIR/out/hot.json"},
		step{cat: "$DIR/out/hot.json", key: "pipeline-get"},
		step{cmd: "pipeline get --name nope --version 2001_01_01_1", code: 1},
		step{cmd: "pipeline get --name hot-hosts --version 2001_01_01_1", code: 1},
		step{cmd: "pipeline get --name hot-hosts --version 'not a.version'", code: 1},

		step{cmd: "pipeline delete --name hot-hosts --version $V1"},
		step{cmd: "pipeline delete --name hot-hosts --version $V1", code: 1},
		step{cmd: "pipeline delete --name nope --version $V1", code: 1},
		step{cmd: "pipeline get-versions --name hot-hosts"},

		step{cmd: "pipeline convert-to-json --pipetype Published"},
		step{cmd: "pipeline convert-to-json --pipetype Published"},
		step{cmd: "pipeline convert-to-json --pipetype Draft"},
		step{cmd: "pipeline convert-to-json --pipetype published", code: 2},
		step{cmd: "pipeline get-versions --name hot-hosts"},

		step{cmd: "pipeline bots"},
		step{cmd: "pipeline bots --tag dm:sort"},
		step{cmd: "pipeline bots --tag @c:timed-loop --json"},
		step{cmd: "pipeline bots --tag @dm:nope", code: 1},
	)
	s.unreachable("pipeline list", "pipeline convert-to-json --pipetype Draft")
}
