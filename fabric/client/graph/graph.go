// Package graph is the shell's graph database client: databases,
// collections, graphs, AQL queries and bulk loads, spoken through
// github.com/arangodb/go-driver/v2 to whatever the network configuration's
// graphdb section names: the fabric's embedded graph store or a real
// ArangoDB. Nothing here knows which.
package graph

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/arangodb/go-driver/v2/arangodb"
	"github.com/arangodb/go-driver/v2/arangodb/shared"
	"github.com/arangodb/go-driver/v2/connection"
	"github.com/fabricops/fabric/fabric/infra/bus"
)

// Conn is a connection to a graph database.
type Conn struct {
	c arangodb.Client
}

// Open returns a connection to the graph database cfg names, with basic
// authentication (HTTP/1.1, or HTTPS when the URL says so). It does not
// reach the server: the first call does.
func Open(cfg bus.GraphDBConfig) (*Conn, error) {
	if cfg.URL == "" {
		return nil, errors.New("the network configuration names no graph database (its graphdb section has no url)")
	}
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("graphdb url %q: want http(s)://host:port", cfg.URL)
	}
	hc := connection.DefaultHTTPConfigurationWrapper(connection.NewRoundRobinEndpoints([]string{cfg.URL}), false)
	hc.ContentType = connection.ApplicationJSON
	conn := connection.NewHttpConnection(hc)
	if err := conn.SetAuthentication(connection.NewBasicAuth(cfg.User, cfg.Password)); err != nil {
		return nil, err
	}
	return &Conn{c: arangodb.NewClient(conn)}, nil
}

// Driver returns the driver's client, for what this package does not
// wrap.
func (g *Conn) Driver() arangodb.Client { return g.c }

// Error makes a driver's error one line: ArangoDB's message and error
// number ("collection or view not found (1203)"), or a transport error
// as it is.
func Error(err error) error {
	if err == nil {
		return nil
	}
	var ae shared.ArangoError
	if errors.As(err, &ae) && ae.HasError {
		return &APIError{Code: ae.Code, Num: ae.ErrorNum, Msg: ae.ErrorMessage}
	}
	var ue *url.Error
	if errors.As(err, &ue) && !errors.Is(err, context.Canceled) {
		where := ue.URL
		if u, perr := url.Parse(ue.URL); perr == nil {
			where = u.Scheme + "://" + u.Host
		}
		cause := ue.Err
		var op *net.OpError
		if errors.As(cause, &op) && op.Err != nil {
			cause = op.Err
		}
		return fmt.Errorf("the graph database at %s does not answer: %v", where, cause)
	}
	return err
}

// APIError is an error the graph database answered.
type APIError struct {
	Code, Num int
	Msg       string
}

func (e *APIError) Error() string {
	if e.Msg == "" { // the driver drops some answers' bodies
		return fmt.Sprintf("the graph database answered %d %s", e.Code, strings.ToLower(http.StatusText(e.Code)))
	}
	return fmt.Sprintf("%s (%d)", e.Msg, e.Num)
}

// IsNotFound reports whether err says a database, collection, graph or
// document does not exist.
func IsNotFound(err error) bool {
	var ae *APIError
	return errors.As(Error(err), &ae) && ae.Code == 404
}

// Databases returns the names of the databases, sorted.
func (g *Conn) Databases(ctx context.Context) ([]string, error) {
	dbs, err := g.c.Databases(ctx)
	if err != nil {
		return nil, Error(err)
	}
	names := make([]string, 0, len(dbs))
	for _, d := range dbs {
		names = append(names, d.Name())
	}
	slices.Sort(names)
	return names, nil
}

// CreateDatabase creates a database.
func (g *Conn) CreateDatabase(ctx context.Context, name string) error {
	_, err := g.c.CreateDatabase(ctx, name, nil)
	return Error(err)
}

// DeleteDatabase drops a database with its collections, graphs and data.
// The _system database cannot be dropped.
func (g *Conn) DeleteDatabase(ctx context.Context, name string) error {
	if name == "_system" {
		return errors.New("the _system database cannot be deleted")
	}
	if _, err := g.c.GetDatabase(ctx, name, nil); err != nil {
		if IsNotFound(err) {
			return fmt.Errorf("no database %q", name)
		}
		return Error(err)
	}
	// The driver's Remove drops the answer's body, and with it the
	// reason of a refusal: read it.
	var answer shared.ResponseStruct
	resp, err := connection.CallDelete(ctx, g.c.Connection(), connection.NewUrl("_api", "database", url.PathEscape(name)), &answer)
	if err != nil {
		return Error(err)
	}
	if resp.Code() != http.StatusOK {
		return Error(answer.AsArangoErrorWithCode(resp.Code()))
	}
	return nil
}

// Database returns a database that exists.
func (g *Conn) Database(ctx context.Context, name string) (arangodb.Database, error) {
	db, err := g.c.GetDatabase(ctx, name, nil)
	if err != nil {
		if IsNotFound(err) {
			return nil, fmt.Errorf("no database %q", name)
		}
		return nil, Error(err)
	}
	return db, nil
}

// Collection is a collection as listed (SPEC 2.14).
type Collection struct {
	Name   string `json:"name"`
	Type   string `json:"type"` // document or edge
	System bool   `json:"system"`
}

// Collections returns a database's collections by name, the system ones
// only when system is set.
func (g *Conn) Collections(ctx context.Context, database string, system bool) ([]Collection, error) {
	db, err := g.Database(ctx, database)
	if err != nil {
		return nil, err
	}
	cols, err := db.Collections(ctx)
	if err != nil {
		return nil, Error(err)
	}
	out := []Collection{}
	for _, c := range cols {
		isSystem := strings.HasPrefix(c.Name(), "_")
		if isSystem && !system {
			continue
		}
		p, err := c.Properties(ctx)
		if err != nil {
			return nil, Error(err)
		}
		typ := "document"
		if p.Type == arangodb.CollectionTypeEdge {
			typ = "edge"
		}
		out = append(out, Collection{Name: c.Name(), Type: typ, System: isSystem})
	}
	slices.SortFunc(out, func(a, b Collection) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// CreateCollection creates a document collection, or an edge collection
// when edge is set.
func (g *Conn) CreateCollection(ctx context.Context, database, name string, edge bool) error {
	db, err := g.Database(ctx, database)
	if err != nil {
		return err
	}
	props := &arangodb.CreateCollectionPropertiesV2{}
	if edge {
		t := arangodb.CollectionTypeEdge
		props.Type = &t
	}
	_, err = db.CreateCollectionV2(ctx, name, props)
	return Error(err)
}

// DeleteCollection drops a collection and its documents.
func (g *Conn) DeleteCollection(ctx context.Context, database, name string) error {
	db, err := g.Database(ctx, database)
	if err != nil {
		return err
	}
	c, err := db.GetCollection(ctx, name, nil)
	if err != nil {
		if IsNotFound(err) {
			return fmt.Errorf("no collection %q in database %q", name, database)
		}
		return Error(err)
	}
	return Error(c.Remove(ctx))
}

// ensureCollection creates a collection of the given kind unless it
// exists; an existing one of the other kind is an error.
func (g *Conn) ensureCollection(ctx context.Context, db arangodb.Database, name string, edge bool) (arangodb.Collection, error) {
	c, err := db.GetCollection(ctx, name, nil)
	if err != nil {
		if !IsNotFound(err) {
			return nil, Error(err)
		}
		props := &arangodb.CreateCollectionPropertiesV2{}
		if edge {
			t := arangodb.CollectionTypeEdge
			props.Type = &t
		}
		if c, err = db.CreateCollectionV2(ctx, name, props); err != nil {
			if c2, err2 := db.GetCollection(ctx, name, nil); err2 == nil { // created meanwhile
				c = c2
			} else {
				return nil, Error(err)
			}
		}
	}
	p, err := c.Properties(ctx)
	if err != nil {
		return nil, Error(err)
	}
	if isEdge := p.Type == arangodb.CollectionTypeEdge; isEdge != edge {
		want := "a document collection"
		if edge {
			want = "an edge collection"
		}
		return nil, fmt.Errorf("collection %q is not %s", name, want)
	}
	return c, nil
}

// Graph is a named graph (SPEC 2.14).
type Graph struct {
	Name            string           `json:"name"`
	EdgeDefinitions []EdgeDefinition `json:"edge_definitions"`
}

// EdgeDefinition is one edge collection of a graph with the vertex
// collections its edges go from and to.
type EdgeDefinition struct {
	EdgeCollection        string   `json:"edge_collection"`
	FromVertexCollections []string `json:"from_vertex_collections"`
	ToVertexCollections   []string `json:"to_vertex_collections"`
}

// Graphs returns a database's graphs by name.
func (g *Conn) Graphs(ctx context.Context, database string) ([]Graph, error) {
	db, err := g.Database(ctx, database)
	if err != nil {
		return nil, err
	}
	r, err := db.Graphs(ctx)
	if err != nil {
		return nil, Error(err)
	}
	out := []Graph{}
	for {
		gr, err := r.Read()
		if shared.IsNoMoreDocuments(err) {
			break
		}
		if err != nil {
			return nil, Error(err)
		}
		item := Graph{Name: gr.Name(), EdgeDefinitions: []EdgeDefinition{}}
		for _, d := range gr.EdgeDefinitions() {
			item.EdgeDefinitions = append(item.EdgeDefinitions, EdgeDefinition{EdgeCollection: d.Collection,
				FromVertexCollections: d.From, ToVertexCollections: d.To})
		}
		out = append(out, item)
	}
	slices.SortFunc(out, func(a, b Graph) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// CreateGraph creates a graph of one edge definition: edges of
// edgeCollection from vertices of from to vertices of to. Missing
// collections are created.
func (g *Conn) CreateGraph(ctx context.Context, database, name, edgeCollection string, from, to []string) error {
	db, err := g.Database(ctx, database)
	if err != nil {
		return err
	}
	def := &arangodb.GraphDefinition{EdgeDefinitions: []arangodb.EdgeDefinition{{Collection: edgeCollection, From: from, To: to}}}
	_, err = db.CreateGraph(ctx, name, def, nil)
	return Error(err)
}

// DeleteGraph drops a graph; with dropCollections its collections (those
// no other graph uses) and their data go too.
func (g *Conn) DeleteGraph(ctx context.Context, database, name string, dropCollections bool) error {
	db, err := g.Database(ctx, database)
	if err != nil {
		return err
	}
	gr, err := db.Graph(ctx, name, nil)
	if err != nil {
		if IsNotFound(err) {
			return fmt.Errorf("no graph %q in database %q", name, database)
		}
		return Error(err)
	}
	return Error(gr.Remove(ctx, &arangodb.RemoveGraphOptions{DropCollections: dropCollections}))
}
