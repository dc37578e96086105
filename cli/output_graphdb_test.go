package cli

import (
	"context"
	"testing"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client/graph"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/bus"
)

// TestOutputGraphDB: every graphdb command against the tenant's embedded
// graph database, through go-driver/v2: databases, collections, node and
// edge loads from CSV and JSON with a bad row (continuing and halting),
// collection and graph queries, graphs, deletes that ask; then a second
// tenant that sees none of it.
func TestOutputGraphDB(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Tenants: []string{"a", "b"}, Pods: []string{api.APIServer, api.GraphDB}})
	s := newSession(t, "graphdb-create", "graphdb-delete", "graphdb-list", "graphdb-create-collection", "graphdb-delete-collection",
		"graphdb-list-collections", "graphdb-create-graph", "graphdb-delete-graph", "graphdb-list-graphs", "graphdb-query",
		"graphdb-graph-query", "graphdb-insert-nodes", "graphdb-insert-edges", "graphdb-create-index", "graphdb-list-indexes", "graphdb-drop-index")
	s.sc.Column("Seconds", "<SECONDS>").Column("Per Second", "<RATE>").Column("ID", "<ID>") // index ids: the store's counter
	dir := s.vars["DIR"]
	write(t, dir, "nodes.csv", "node_id,name,kind,ports\nsw1,Switch 1,switch,48\nsw2,Switch 2,switch,24\nr1,Router 1,router,8\nbad id,Bad,x,0\nh1,Host 1,host,2\n")
	write(t, dir, "more.json", `[{"id": "h2", "name": "Host 2", "kind": "host", "ports": 1}, {"id": "h3", "name": "Host 3", "kind": "host", "ports": 4}]`)
	write(t, dir, "edges.csv", "left_id,right_id,relation\nsw1,sw2,uplink\nsw2,r1,uplink\nr1,h1,access\nsw1,,access\nsw2,h1,access\n")
	write(t, dir, "cables.json", `[{"src": "h2", "dst": "sw1", "relation": "access"}, {"src": "sw1", "dst": "h2", "relation": "access"}, {"src": "h3", "dst": "sw2", "relation": "access"}]`)
	write(t, dir, "walk.aql", "FOR v, e, p IN 1..3 OUTBOUND 'devices/sw1' links\n  SORT v._key\n  RETURN {vertex: v._key, depth: LENGTH(p.edges), via: e.relation}\n")
	write(t, dir, "bad.aql", "FOR v IN devices FILTER RETURN v")

	s.steps(
		step{cmd: "graphdb list"},
		step{cmd: "graphdb create inv"},
		step{cmd: "graphdb create inv", code: 1},
		step{cmd: "graphdb create 'no/good'", code: 1},
		step{cmd: "graphdb create", code: 2},
		step{cmd: "graphdb list --json"},
		step{cmd: "graphdb list inv", code: 2},

		step{cmd: "graphdb create-collection devices --database inv"},
		step{cmd: "graphdb create-collection links --database inv --edge"},
		step{cmd: "graphdb create-collection devices --database inv", code: 1},
		step{cmd: "graphdb create-collection x --database nope", code: 1},
		step{cmd: "graphdb list-collections --database inv"},
		step{cmd: "graphdb list-collections --database inv --system"},
		step{cmd: "graphdb list-collections --database inv --json"},
		step{cmd: "graphdb list-collections --database nope", code: 1},

		step{cmd: "graphdb insert-nodes devices $DIR/nodes.csv --database inv"},
		step{cmd: "graphdb insert-nodes devices $DIR/nodes.csv --database inv --halt-on-error --on-duplicate ignore", code: 1},
		step{cmd: "graphdb insert-nodes halted $DIR/nodes.csv --database inv --batch-size 2 --halt-on-error", code: 1},
		step{cmd: "graphdb query halted --database inv --query '* GET _key' --sortby _key --order asc"},
		step{cmd: "graphdb insert-nodes devices $DIR/more.json --database inv --key-column id --batch-size 1"},
		step{cmd: "graphdb insert-nodes devices $DIR/more.json --database inv", code: 1},
		step{cmd: "graphdb insert-nodes devices $DIR/none.csv --database inv", code: 1},
		step{cmd: "graphdb insert-nodes devices $DIR/nodes.csv --database inv --on-duplicate merge", code: 2},
		step{cmd: "graphdb insert-nodes devices $DIR/nodes.csv --database inv --batch-size 0", code: 2},
		step{cmd: "graphdb insert-nodes links $DIR/nodes.csv --database inv", code: 1},

		step{cmd: "graphdb insert-edges devices links $DIR/edges.csv --database inv --batch-size 2"},
		step{cmd: "graphdb insert-edges devices links $DIR/edges.csv --database inv --halt-on-error", code: 1},
		step{cmd: "graphdb insert-edges devices links $DIR/cables.json --database inv --left-id-column src --right-id-column dst --edge-key-attrs src,dst,relation --sort-on-key"},
		step{cmd: "graphdb insert-edges devices links $DIR/cables.json --database inv", code: 1},

		step{cmd: "graphdb query devices --database inv --sortby _key --order asc"},
		step{cmd: "graphdb query devices --database inv --query \"kind is 'switch' or ports > 3\" --sortby ports"},
		step{cmd: "graphdb query devices --database inv --query \"kind is 'host' GET name, ports as 'Ports'\" --sortby name --order asc --max-rows 2"},
		step{cmd: "graphdb query links --database inv --query \"* GET _from, _to, relation\" --sortby _from,_to --order asc --json"},
		step{cmd: "graphdb query devices --database inv --query 'kind is'", code: 1},
		step{cmd: "graphdb query nope --database inv", code: 1},

		step{cmd: "graphdb create-graph net --database inv --from-collections devices --to-collections devices --edge-collection links"},
		step{cmd: "graphdb create-graph net --database inv --from-collections devices --to-collections devices --edge-collection links", code: 1},
		step{cmd: "graphdb list-graphs --database inv"},
		step{cmd: "graphdb list-graphs --database inv --json"},
		step{cmd: "graphdb list-graphs", code: 2},
		step{cmd: "graphdb graph-query --database inv --query-file $DIR/walk.aql"},
		step{cmd: "graphdb graph-query --database inv --query \"FOR v IN 1..2 ANY 'devices/h1' GRAPH 'net' OPTIONS {order: 'bfs', uniqueVertices: 'global'} RETURN v._key\" --limit 2"},
		step{cmd: "graphdb graph-query --database inv --query \"FOR d IN devices COLLECT kind = d.kind WITH COUNT INTO n SORT kind RETURN {kind, n}\" --json"},
		step{cmd: "graphdb graph-query --database inv --query \"RETURN LENGTH((FOR v IN OUTBOUND SHORTEST_PATH 'devices/sw1' TO 'devices/h1' GRAPH 'net' RETURN v))\""},
		step{cmd: "graphdb graph-query --database inv --query-file $DIR/bad.aql", code: 1},
		step{cmd: "graphdb graph-query --database inv", code: 2},

		step{cmd: "graphdb create-index devices --database inv --fields kind,ports --name by-kind"},
		step{cmd: "graphdb create-index devices --database inv --fields kind,ports"},
		step{cmd: "graphdb create-index devices --database inv --fields name --unique --sparse --name by-name"},
		step{cmd: "graphdb create-index devices --database inv --fields seen --type ttl --expire-after 86400 --name expiry"},
		step{cmd: "graphdb create-index devices --database inv --fields kind --unique --name one-kind", code: 1},
		step{cmd: "graphdb create-index devices --database inv --fields kind --expire-after 5", code: 2},
		step{cmd: "graphdb create-index devices --database inv --fields a,b --type ttl", code: 2},
		step{cmd: "graphdb create-index devices --database inv --fields kind --type geo", code: 2},
		step{cmd: "graphdb create-index nope --database inv --fields kind", code: 1},
		step{cmd: "graphdb list-indexes devices --database inv"},
		step{cmd: "graphdb list-indexes links --database inv --json"},
		step{cmd: "graphdb list-indexes nope --database inv", code: 1},
		step{cmd: "graphdb graph-query --database inv --query \"FOR d IN devices FILTER d.kind == 'host' AND d.ports >= 2 SORT d._key RETURN d.name\""},
		step{cmd: "graphdb graph-query --database inv --query \"FOR d IN devices FILTER d.kind == 'host' UPDATE d WITH {checked: true} IN devices RETURN NEW.name\""},
		step{cmd: "graphdb graph-query --database inv --query \"FOR k IN ['sw1', 'nope'] REMOVE k IN halted OPTIONS {ignoreErrors: true}\""},
		step{cmd: "graphdb graph-query --database inv --query \"INSERT {_key: 'sw1'} INTO devices\"", code: 1},
		step{cmd: "graphdb drop-index devices by-kind --database inv", stdin: "n\n"},
		step{cmd: "graphdb drop-index devices by-kind --database inv --confirm"},
		step{cmd: "graphdb drop-index devices by-kind --database inv --confirm", code: 1},
		step{cmd: "graphdb drop-index devices primary --database inv --confirm", code: 1},

		step{cmd: "graphdb delete-graph net --database inv", stdin: "n\n"},
		step{cmd: "graphdb delete-graph net --database inv --confirm"},
		step{cmd: "graphdb delete-graph net --database inv --confirm", code: 1},
		step{cmd: "graphdb delete-collection links --database inv", stdin: "y\n"},
		step{cmd: "graphdb delete-collection links --database inv --confirm", code: 1},
		step{cmd: "graphdb delete inv", stdin: "n\n"},
		step{cmd: "graphdb list-collections --database inv"},
	)

	// The second tenant has a graph database of its own: it lists none of
	// the first's databases and cannot open them.
	f.UseTenant(t, "b")
	s.steps(
		step{cmd: "graphdb list"},
		step{cmd: "graphdb query devices --database inv", code: 1},
	)
	a, b := f.Configs["a"].GraphDB, f.Configs["b"].GraphDB
	if a.URL == b.URL || a.Password == b.Password {
		t.Fatalf("the tenants share a graph database: %+v %+v", a, b)
	}
	g, err := graph.Open(bus.GraphDBConfig{URL: a.URL, User: b.User, Password: b.Password})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Databases(context.Background()); err == nil {
		t.Fatal("tenant b's credentials opened tenant a's graph database")
	}

	f.UseTenant(t, "a")
	s.steps(
		step{cmd: "graphdb delete inv", stdin: "y\n"},
		step{cmd: "graphdb delete inv --confirm", code: 1},
		step{cmd: "graphdb delete _system --confirm", code: 1},
		step{cmd: "graphdb list"},
	)
}
