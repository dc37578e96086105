package data

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/fabricops/fabric/builtins"
	"slices"
	"sync"

	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/client/graph"
	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/fabricops/fabric/fabric/lib/starvalue"
	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/host"
	"github.com/fabricops/fabric/runtime/stdlib"
	"go.starlark.net/starlark"
)

// graphdbModule is the graphdb module: the tenant's graph database
// (SPEC 2.14), the embedded one or a real ArangoDB, as the network
// configuration's graphdb section says.
func (e env) graphdbModule() starlark.Value {
	return doc.Module("graphdb", "The graph database: databases, collections, graphs, AQL queries and bulk loads of nodes and edges.", starlark.StringDict{
		"create": doc.Builtin("graphdb.create", `create(name)

Creates a database.`, e.graphNameCall(func(ctx context.Context, g *graph.Conn, name string) (any, error) {
			return nil, g.CreateDatabase(ctx, name)
		})),
		"delete": doc.Builtin("graphdb.delete", `delete(name)

Deletes a database with its collections, graphs and data, for good.`, e.graphNameCall(func(ctx context.Context, g *graph.Conn, name string) (any, error) {
			return nil, g.DeleteDatabase(ctx, name)
		})),
		"list": doc.Builtin("graphdb.list", `list()

Returns the names of the databases.`, e.graphList),
		"create_collection": doc.Builtin("graphdb.create_collection", `create_collection(name, database="_system", edge=False)

Creates a document collection, or an edge collection with edge=True.`, e.graphCreateCollection),
		"delete_collection": doc.Builtin("graphdb.delete_collection", `delete_collection(name, database="_system")

Deletes a collection and its documents.`, e.graphDeleteCollection),
		"list_collections": doc.Builtin("graphdb.list_collections", `list_collections(database="_system", system=False)

Returns the collections (name, type document|edge, system), the system
ones only with system=True.`, e.graphListCollections),
		"create_graph": doc.Builtin("graphdb.create_graph", `create_graph(name, edge_collection, from_collections, to_collections, database="_system")

Creates a graph whose edges (of edge_collection) go from vertices of
from_collections to vertices of to_collections (lists of names);
missing collections are created.`, e.graphCreateGraph),
		"delete_graph": doc.Builtin("graphdb.delete_graph", `delete_graph(name, database="_system", drop_collections=False)

Deletes a graph; with drop_collections=True its collections and their
data too (those no other graph uses).`, e.graphDeleteGraph),
		"list_graphs": doc.Builtin("graphdb.list_graphs", `list_graphs(database="_system")

Returns the graphs (name, edge_definitions: edge_collection,
from_vertex_collections, to_vertex_collections).`, e.graphListGraphs),
		"query": doc.Builtin("graphdb.query", `query(collection, database="_system", query="*", max_rows=100, sortby=None, order="desc", as_frame=False)

Returns up to max_rows documents of a collection that match a filter
expression (CFXQL; its GET columns project), ordered by the sortby
columns: a list of dicts, or a frame with as_frame=True.`, e.graphQuery),
		"aql": doc.Builtin("graphdb.aql", `aql(query, bind_vars=None, database="_system", limit=0, with_writes=False)

Runs an AQL query with bind variables (a dict; "@coll" binds a
collection) and returns its results as a list (the first limit only,
when limit > 0). With with_writes=True it returns a dict: results,
total (the results the query had) and writes (executed, ignored: the
documents its INSERT, UPDATE, REPLACE, REMOVE and UPSERT wrote, and
those whose write failed under ignoreErrors).`, e.graphAQL),
		"create_index": doc.Builtin("graphdb.create_index", `create_index(collection, fields, database="_system", type="persistent", name="", unique=False, sparse=False, expire_after=0)

Makes an index of a collection (or finds the one of the same definition):
persistent on the attribute paths fields (a list; "tags[*]" indexes an
array's elements), which FILTERs and lookups on them use; or ttl on one
attribute holding a time (seconds since the epoch or an ISO date), its
documents removed expire_after seconds after it. Returns the index (id,
name, type, fields, unique, sparse, expire_after) with created (False
when it existed).`, e.graphCreateIndex),
		"list_indexes": doc.Builtin("graphdb.list_indexes", `list_indexes(collection, database="_system")

Returns a collection's indexes (id, name, type, fields, unique, sparse,
expire_after): the primary index first (and an edge collection's edge
index), then the others in the order made.`, e.graphListIndexes),
		"drop_index": doc.Builtin("graphdb.drop_index", `drop_index(collection, index, database="_system")

Deletes an index of a collection, named by its name or id.`, e.graphDropIndex),
		"insert_nodes": doc.Builtin("graphdb.insert_nodes", `insert_nodes(collection, source, database="_system", key_column="node_id", batch_size=100, on_duplicate="update", halt_on_error=False)

Writes rows as documents of a collection (created when missing): source
is a CSV or JSON file's path, a frame, or a list of dicts. The key column
becomes _key; every column is an attribute. on_duplicate (update, replace
or ignore) says what a row whose key exists does. Failed rows are counted
and the load goes on, unless halt_on_error=True (it then stops after the
first failed batch). Returns collection, rows, written, errors, halted,
seconds and row_errors (row, key, error; the first 100).`, e.graphInsertNodes),
		"insert_edges": doc.Builtin("graphdb.insert_edges", `insert_edges(nodes, edges, source, database="_system", left_id_column="left_id", right_id_column="right_id", batch_size=100, edge_key_attrs=None, sort_on_key=False, on_duplicate="update", halt_on_error=False)

Writes rows as edges of the edge collection edges (created when missing):
_from is nodes/<left id>, _to nodes/<right id>, _key a stable hash of the
edge_key_attrs columns (default: the left and right id columns; with
sort_on_key=True their values are sorted first, so that an edge and its
reverse are one). Otherwise as insert_nodes.`, e.graphInsertEdges),
	})
}

// graphConn returns the connection to the graph database a network
// configuration names, made on first use.
func graphConn(cfg client.GraphDBConfig) (*graph.Conn, error) {
	key := cfg.URL + "\x00" + cfg.User + "\x00" + cfg.Password
	if g, ok := graphConns.Load(key); ok {
		return g.(*graph.Conn), nil
	}
	g, err := graph.Open(cfg)
	if err != nil {
		return nil, err
	}
	actual, _ := graphConns.LoadOrStore(key, g)
	return actual.(*graph.Conn), nil
}

// graphConns are the graph database connections made, by configuration,
// so that a workflow's calls share their HTTP connections.
var graphConns sync.Map

// graphCall runs fn with the graph database of the fabric's network
// configuration (starting the local fabric if need be), as call does.
func (e env) graphCall(thread *starlark.Thread, b *starlark.Builtin, fn func(ctx context.Context, g *graph.Conn) (any, error)) (starlark.Value, error) {
	return e.Call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		g, err := graphConn(c.Config.GraphDB)
		if err != nil {
			return nil, err
		}
		return fn(ctx, g)
	})
}

func (e env) graphNameCall(do func(ctx context.Context, g *graph.Conn, name string) (any, error)) builtinFunc {
	return func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var name string
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name); err != nil {
			return nil, err
		}
		return e.graphCall(thread, b, func(ctx context.Context, g *graph.Conn) (any, error) { return do(ctx, g, name) })
	}
}

func (e env) graphList(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	return e.graphCall(thread, b, func(ctx context.Context, g *graph.Conn) (any, error) { return g.Databases(ctx) })
}

func (e env) graphCreateCollection(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	database, edge := "_system", false
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "database?", &database, "edge?", &edge); err != nil {
		return nil, err
	}
	return e.graphCall(thread, b, func(ctx context.Context, g *graph.Conn) (any, error) {
		return nil, g.CreateCollection(ctx, database, name, edge)
	})
}

func (e env) graphDeleteCollection(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	database := "_system"
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "database?", &database); err != nil {
		return nil, err
	}
	return e.graphCall(thread, b, func(ctx context.Context, g *graph.Conn) (any, error) {
		return nil, g.DeleteCollection(ctx, database, name)
	})
}

func (e env) graphListCollections(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	database, system := "_system", false
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "database?", &database, "system?", &system); err != nil {
		return nil, err
	}
	return e.graphCall(thread, b, func(ctx context.Context, g *graph.Conn) (any, error) {
		return g.Collections(ctx, database, system)
	})
}

func (e env) graphCreateGraph(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name, edges string
	var from, to starlark.Value
	database := "_system"
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "edge_collection", &edges, "from_collections", &from, "to_collections", &to, "database?", &database); err != nil {
		return nil, err
	}
	fromNames, err := columnNames(from)
	if err != nil {
		return nil, fmt.Errorf("%s: from_collections: %v", b.Name(), err)
	}
	toNames, err := columnNames(to)
	if err != nil {
		return nil, fmt.Errorf("%s: to_collections: %v", b.Name(), err)
	}
	return e.graphCall(thread, b, func(ctx context.Context, g *graph.Conn) (any, error) {
		return nil, g.CreateGraph(ctx, database, name, edges, fromNames, toNames)
	})
}

func (e env) graphDeleteGraph(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	database, drop := "_system", false
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "database?", &database, "drop_collections?", &drop); err != nil {
		return nil, err
	}
	return e.graphCall(thread, b, func(ctx context.Context, g *graph.Conn) (any, error) {
		return nil, g.DeleteGraph(ctx, database, name, drop)
	})
}

func (e env) graphListGraphs(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	database := "_system"
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "database?", &database); err != nil {
		return nil, err
	}
	return e.graphCall(thread, b, func(ctx context.Context, g *graph.Conn) (any, error) {
		return g.Graphs(ctx, database)
	})
}

func (e env) graphQuery(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	o := graph.FindOptions{Database: "_system", Query: "*", MaxRows: 100}
	var sortby starlark.Value = starlark.None
	order, asFrame := "desc", false
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "collection", &o.Collection, "database?", &o.Database, "query?", &o.Query,
		"max_rows?", &o.MaxRows, "sortby?", &sortby, "order?", &order, "as_frame?", &asFrame); err != nil {
		return nil, err
	}
	if sortby != starlark.None {
		cols, err := columnNames(sortby)
		if err != nil {
			return nil, fmt.Errorf("%s: sortby: %v", b.Name(), err)
		}
		o.SortBy = cols
	}
	switch order {
	case "desc":
		o.Desc = true
	case "asc":
	default:
		return nil, fmt.Errorf("%s: order %q: want asc or desc", b.Name(), order)
	}
	if o.MaxRows <= 0 {
		return nil, fmt.Errorf("%s: max_rows must be 1 or more", b.Name())
	}
	return e.graphCall(thread, b, func(ctx context.Context, g *graph.Conn) (any, error) {
		rows, columns, err := g.Find(ctx, o)
		if err != nil {
			return nil, err
		}
		list := make([]starlark.Value, len(rows))
		for i, r := range rows {
			if list[i], err = orderedDoc(r, columns); err != nil {
				return nil, err
			}
		}
		v := starlark.NewList(list)
		if !asFrame {
			return v, nil
		}
		return frameFromRows(thread, b, starlark.Tuple{v}, nil)
	})
}

func (e env) graphAQL(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var query string
	var binds starlark.Value = starlark.None
	database, limit, withWrites := "_system", 0, false
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "query", &query, "bind_vars?", &binds, "database?", &database, "limit?", &limit, "with_writes?", &withWrites); err != nil {
		return nil, err
	}
	var vars map[string]any
	if binds != starlark.None {
		d, ok := binds.(*starlark.Dict)
		if !ok {
			return nil, fmt.Errorf("%s: bind_vars must be a dict, not %s", b.Name(), binds.Type())
		}
		x, err := starvalue.FromStarlark(d)
		if err != nil {
			return nil, fmt.Errorf("%s: bind_vars: %v", b.Name(), err)
		}
		m, _ := x.(starvalue.Map) // values nested in it encode themselves
		vars = make(map[string]any, len(m))
		for _, kv := range m {
			vars[kv.Key] = kv.Value
		}
	}
	return e.graphCall(thread, b, func(ctx context.Context, g *graph.Conn) (any, error) {
		var out []starlark.Value
		var decodeErr error
		total, writes, err := g.AQLWrites(ctx, database, query, vars, func(raw json.RawMessage) bool {
			v, err := stdlib.DecodeJSON(raw)
			if err != nil {
				decodeErr = err
				return false
			}
			out = append(out, v)
			return limit <= 0 || len(out) < limit
		})
		if err == nil {
			err = decodeErr
		}
		if err != nil || !withWrites {
			return starlark.NewList(out), err
		}
		d := starlark.NewDict(3)
		w := starlark.NewDict(2)
		_ = w.SetKey(starlark.String("executed"), starlark.MakeInt64(writes.Executed))
		_ = w.SetKey(starlark.String("ignored"), starlark.MakeInt64(writes.Ignored))
		_ = d.SetKey(starlark.String("results"), starlark.NewList(out))
		_ = d.SetKey(starlark.String("total"), starlark.MakeInt(total))
		_ = d.SetKey(starlark.String("writes"), w)
		return d, nil
	})
}

func (e env) graphCreateIndex(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var collection string
	var fields starlark.Value
	database, spec := "_system", graph.IndexSpec{Type: "persistent"}
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "collection", &collection, "fields", &fields, "database?", &database,
		"type?", &spec.Type, "name?", &spec.Name, "unique?", &spec.Unique, "sparse?", &spec.Sparse, "expire_after?", &spec.ExpireAfter); err != nil {
		return nil, err
	}
	names, err := columnNames(fields)
	if err != nil {
		return nil, fmt.Errorf("%s: fields: %v", b.Name(), err)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: fields: give one or more attribute paths", b.Name())
	}
	spec.Fields = names
	if spec.ExpireAfter < 0 {
		return nil, fmt.Errorf("%s: expire_after must be 0 or more", b.Name())
	}
	return e.graphCall(thread, b, func(ctx context.Context, g *graph.Conn) (any, error) {
		ix, created, err := g.CreateIndex(ctx, database, collection, spec)
		if err != nil {
			return nil, err
		}
		return struct {
			graph.Index
			Created bool `json:"created"`
		}{ix, created}, nil
	})
}

func (e env) graphListIndexes(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var collection string
	database := "_system"
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "collection", &collection, "database?", &database); err != nil {
		return nil, err
	}
	return e.graphCall(thread, b, func(ctx context.Context, g *graph.Conn) (any, error) {
		return g.Indexes(ctx, database, collection)
	})
}

func (e env) graphDropIndex(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var collection, index string
	database := "_system"
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "collection", &collection, "index", &index, "database?", &database); err != nil {
		return nil, err
	}
	return e.graphCall(thread, b, func(ctx context.Context, g *graph.Conn) (any, error) {
		return nil, g.DropIndex(ctx, database, collection, index)
	})
}

// systemAttributes are the attributes a document dict starts with.
var systemAttributes = []string{"_key", "_id", "_from", "_to", "_rev"}

// orderedDoc makes a document a dict: the given columns in their order,
// or the system attributes then the others by name.
func orderedDoc(doc map[string]any, columns []string) (starlark.Value, error) {
	m := make(starvalue.Map, 0, len(doc))
	if columns != nil {
		for _, c := range columns {
			m = append(m, starvalue.KV{Key: c, Value: doc[c]})
		}
		return starvalue.ToStarlark(m)
	}
	for _, k := range systemAttributes {
		if v, ok := doc[k]; ok {
			m = append(m, starvalue.KV{Key: k, Value: v})
		}
	}
	rest := make([]string, 0, len(doc))
	for k := range doc {
		if !slices.Contains(systemAttributes, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	for _, k := range rest {
		m = append(m, starvalue.KV{Key: k, Value: doc[k]})
	}
	return starvalue.ToStarlark(m)
}

// loadSource opens what insert_nodes and insert_edges read: a file (CSV
// or JSON, told by its extension), a frame, or a list of dicts.
func loadSource(thread *starlark.Thread, b *starlark.Builtin, v starlark.Value) (frame.Source, error) {
	if path, ok := starlark.AsString(v); ok {
		return frame.Open(path, frame.Format("auto"))
	}
	if _, ok := v.(*starlark.List); ok {
		fv, err := frameFromRows(thread, b, starlark.Tuple{v}, nil)
		if err != nil {
			return nil, err
		}
		v = fv
	}
	src, ok, err := sourceOf(host.Context(thread), v)
	if !ok {
		return nil, fmt.Errorf("source must be a file path, a frame or a list of dicts, not %s", v.Type())
	}
	return src, err
}

func (e env) graphInsertNodes(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	o := graph.NodeOptions{LoadOptions: graph.LoadOptions{Database: "_system", BatchSize: graph.DefaultBatchSize, OnDuplicate: graph.DefaultOnDuplicate},
		KeyColumn: graph.DefaultKeyColumn}
	var source starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "collection", &o.Collection, "source", &source, "database?", &o.Database,
		"key_column?", &o.KeyColumn, "batch_size?", &o.BatchSize, "on_duplicate?", &o.OnDuplicate, "halt_on_error?", &o.HaltOnError); err != nil {
		return nil, err
	}
	return e.graphLoad(thread, b, o.LoadOptions, source, func(ctx context.Context, g *graph.Conn, src frame.Source) (*graph.LoadResult, error) {
		return g.LoadNodes(ctx, src, o)
	})
}

func (e env) graphInsertEdges(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	o := graph.EdgeOptions{LoadOptions: graph.LoadOptions{Database: "_system", BatchSize: graph.DefaultBatchSize, OnDuplicate: graph.DefaultOnDuplicate},
		LeftColumn: graph.DefaultLeftColumn, RightColumn: graph.DefaultRightColumn}
	var source starlark.Value
	var keyAttrs starlark.Value = starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "nodes", &o.Nodes, "edges", &o.Edges, "source", &source, "database?", &o.Database,
		"left_id_column?", &o.LeftColumn, "right_id_column?", &o.RightColumn, "batch_size?", &o.BatchSize, "edge_key_attrs?", &keyAttrs,
		"sort_on_key?", &o.SortOnKey, "on_duplicate?", &o.OnDuplicate, "halt_on_error?", &o.HaltOnError); err != nil {
		return nil, err
	}
	if keyAttrs != starlark.None {
		names, err := columnNames(keyAttrs)
		if err != nil {
			return nil, fmt.Errorf("%s: edge_key_attrs: %v", b.Name(), err)
		}
		o.KeyAttrs = names
	}
	return e.graphLoad(thread, b, o.LoadOptions, source, func(ctx context.Context, g *graph.Conn, src frame.Source) (*graph.LoadResult, error) {
		return g.LoadEdges(ctx, src, o)
	})
}

// graphLoad checks a load's options, opens its source and runs it.
func (e env) graphLoad(thread *starlark.Thread, b *starlark.Builtin, o graph.LoadOptions, source starlark.Value,
	load func(ctx context.Context, g *graph.Conn, src frame.Source) (*graph.LoadResult, error)) (starlark.Value, error) {
	if err := checkLoad(o); err != nil {
		return nil, builtins.Fail(b.Name(), err)
	}
	return e.graphCall(thread, b, func(ctx context.Context, g *graph.Conn) (any, error) {
		src, err := loadSource(thread, b, source)
		if err != nil {
			return nil, err
		}
		defer src.Close()
		return loadResult(load(ctx, g, src))
	})
}

// checkLoad refuses options no load can run with, before any reading.
func checkLoad(o graph.LoadOptions) error {
	if o.BatchSize <= 0 {
		return fmt.Errorf("batch_size must be 1 or more")
	}
	switch o.OnDuplicate {
	case "update", "replace", "ignore":
		return nil
	}
	return fmt.Errorf("on_duplicate %q: want update, replace or ignore", o.OnDuplicate)
}

// loadResult returns a load's result; a load that failed as a whole
// fails, one with failed rows returns them.
func loadResult(res *graph.LoadResult, err error) (any, error) {
	if err != nil {
		if res != nil && res.Written > 0 {
			return nil, fmt.Errorf("%v (after %d rows written)", err, res.Written)
		}
		return nil, err
	}
	return res, nil
}
