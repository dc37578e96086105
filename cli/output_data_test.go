package cli

import (
	"os"
	"testing"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
)

// TestOutputDatasets: datasets, bounded datasets and schemas.
func TestOutputDatasets(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	s := newSession(t, "dataset-add", "dataset-list", "dataset-get", "dataset-meta", "dataset-delete",
		"dataset-bounded-add", "dataset-bounded-import", "dataset-bounded-list", "dataset-bounded-get",
		"dataset-bounded-meta", "dataset-bounded-delete", "schema-add", "schema-list", "schema-get", "schema-delete", "viz")
	dir := s.vars["DIR"]
	write(t, dir, "sales.csv", outputCSV)
	write(t, dir, "more.jsonl", `{"region": "west", "units": 2, "price": 4.5, "ok": true, "when": "1999-04-05T06:07:08Z"}`+"\n")
	write(t, dir, "bad.csv", "a,b\n1,2\n3,4,5\n")
	write(t, dir, "x.dat", "1")
	write(t, dir, "x.orc", "ORC")
	legacy, err := os.ReadFile("../fabric/lib/xls/testdata/hosts.xls") // a legacy binary workbook
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, "hosts.xls", string(legacy))
	write(t, dir, "fake.xls", "host,cpu\n")
	write(t, dir, "hosts.schema.json", `{"type": "object", "required": ["host", "cpu"],
  "properties": {"host": {"type": "string"}, "cpu": {"type": "number", "minimum": 0, "maximum": 100}}}`)
	write(t, dir, "bad-schema.json", `{"type": 12}`)
	write(t, dir, "not-json.json", `{"type": `)
	write(t, dir, "good.csv", "host,cpu\nweb-1,12.5\nweb-2,99\n")
	write(t, dir, "violating.csv", "host,cpu\nweb-1,12.5\nweb-2,150\n")
	write(t, dir, "missing-column.csv", "host\nweb-3\n")

	s.steps(
		step{cmd: "schema add --name hosts --file $DIR/hosts.schema.json --descr 'hosts and their cpu'"},
		step{cmd: "schema add --name hosts --file $DIR/hosts.schema.json", code: 1},
		step{cmd: "schema add --name hosts --file $DIR/hosts.schema.json --descr 'hosts, replaced' --overwrite"},
		step{cmd: "schema add --name broken --file $DIR/bad-schema.json", code: 1},
		step{cmd: "schema add --name broken --file $DIR/not-json.json", code: 1},
		step{cmd: "schema add --name broken --file $DIR/none.json", code: 1},
		step{cmd: "schema list"},
		step{cmd: "schema list --json"},
		step{cmd: "schema get --name hosts"},
		step{cmd: "schema get --name nope", code: 1},

		step{cmd: "dataset add --name sales --file $DIR/sales.csv"},
		step{cmd: "dataset add --name sales-csv --file $DIR/sales.csv --remote_format csv --folder reports"},
		step{cmd: "dataset-add --name sales --file $DIR/more.jsonl"},
		step{cmd: "dataset add --name sales --file $DIR/sales.csv --local_format csv"},
		step{cmd: "dataset add --name bad --file $DIR/bad.csv", code: 1},
		step{cmd: "dataset add --name bad --file $DIR/x.dat", code: 1},
		step{cmd: "dataset add --name bad --file $DIR/x.orc", code: 1},
		step{cmd: "dataset add --name legacy --file $DIR/hosts.xls"},
		step{cmd: "dataset get --name legacy --format jsonl"},
		step{cmd: "dataset add --name bad --file $DIR/fake.xls", code: 1},
		step{cmd: "dataset add --name bad --file $DIR/none.csv", code: 1},
		step{cmd: "dataset add --name bad --file $DIR/sales.csv --local_format xml", code: 2},

		step{cmd: "dataset list"},
		step{cmd: "dataset-list --json"},
		step{cmd: "dataset get --name sales"},
		step{cmd: "dataset get --name sales-csv --format csv"},
		step{cmd: "dataset get --name sales --format json"},
		step{cmd: "dataset get --name sales --format jsonl"},
		step{cmd: "dataset get --name sales --json"},
		step{cmd: "dataset get --name sales --viz"},
		step{cmd: "dataset get --name sales --viz --format csv", code: 2},
		step{cmd: "viz --dataset sales"},
		step{cmd: "viz $DIR/sales.csv"},
		step{cmd: "viz $DIR/more.jsonl"},
		step{cmd: "viz $DIR/none.csv", code: 1},
		step{cmd: "viz $DIR/bad.csv", code: 1},
		step{cmd: "viz $DIR/sales.csv --dataset sales", code: 2},
		step{cmd: "viz", code: 2},
		step{cmd: "viz --dataset nope", code: 1},
		step{cmd: "dataset get --name sales --tofile $DIR/out/sales.csv"},
		step{cat: "$DIR/out/sales.csv", key: "dataset-get"},
		step{cmd: "dataset get --name nope", code: 1},
		step{cmd: "dataset get --name sales --format parquet", code: 2},
		step{cmd: "dataset meta --name sales-csv"},
		step{cmd: "dataset meta --name nope", code: 1},

		step{cmd: "dataset bounded-add --name inv --schema hosts"},
		step{cmd: "dataset bounded-add --name inv --schema hosts", code: 1},
		step{cmd: "dataset bounded-add --name inv2 --schema nope", code: 1},
		step{cmd: "dataset bounded-import --name inv --file $DIR/violating.csv --yes", code: 1},
		step{cmd: "dataset bounded-import --name inv --file $DIR/missing-column.csv --yes", code: 1},
		step{cmd: "dataset bounded-import --name nope --file $DIR/good.csv --yes", code: 1},
		step{cmd: "dataset bounded-import --name inv --file $DIR/good.csv", stdin: "n\n"},
		step{cmd: "dataset bounded-list"},
		step{cmd: "dataset bounded-get --name inv", code: 1},
		step{cmd: "dataset bounded-import --name inv --file $DIR/good.csv", stdin: "y\n"},
		step{cmd: "dataset bounded-import --name inv --file $DIR/good.csv --yes --json"},
		step{cmd: "dataset bounded-list"},
		step{cmd: "dataset bounded-list --json"},
		step{cmd: "dataset bounded-get --name inv"},
		step{cmd: "dataset bounded-get --name inv --format csv"},
		step{cmd: "dataset bounded-get --name inv --format json"},
		step{cmd: "dataset bounded-get --name inv --viz"},
		step{cmd: "dataset bounded-get --name inv --viz --tofile $DIR/out/inv.csv", code: 2},
		step{cmd: "dataset bounded-get --name inv --tofile $DIR/out/inv.jsonl"},
		step{cat: "$DIR/out/inv.jsonl", key: "dataset-bounded-get"},
		step{cmd: "dataset bounded-get --name nope", code: 1},
		step{cmd: "dataset bounded-get --name inv --format xlsx", code: 2},
		step{cmd: "dataset bounded-meta --name inv"},
		step{cmd: "dataset bounded-meta --name nope", code: 1},

		step{cmd: "schema delete --name hosts", code: 1},
		step{cmd: "dataset bounded-delete --name inv", stdin: "n\n"},
		step{cmd: "dataset bounded-delete --name inv --yes"},
		step{cmd: "dataset bounded-delete --name inv --yes", code: 1},
		step{cmd: "schema delete --name hosts"},
		step{cmd: "schema delete --name hosts", code: 1},
		step{cmd: "schema list"},

		step{cmd: "dataset delete --name sales", stdin: "n\n"},
		step{cmd: "dataset delete --name sales --yes"},
		step{cmd: "dataset delete --name sales --yes", code: 1},
		step{cmd: "dataset list"},
		step{cmd: "dataset bounded-list"},
	)
	s.unreachable("dataset list", "dataset bounded-list", "schema list", "dataset add --name sales --file $DIR/sales.csv")
}
