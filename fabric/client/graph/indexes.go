package graph

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/arangodb/go-driver/v2/arangodb"
)

// Index is an index of a collection as listed (graphdb list-indexes).
type Index struct {
	ID     string   `json:"id"`
	Name   string   `json:"name"`
	Type   string   `json:"type"`
	Fields []string `json:"fields"`
	Unique bool     `json:"unique"`
	Sparse bool     `json:"sparse"`
	// ExpireAfter is a ttl index's seconds (0 for the others).
	ExpireAfter int `json:"expire_after"`
}

// IndexSpec is an index to make: persistent (on one or more attribute
// paths, "tags[*]" for an array's elements) or ttl (one attribute, its
// documents removed ExpireAfter seconds after the time it holds).
type IndexSpec struct {
	Type        string // persistent (default) or ttl
	Fields      []string
	Name        string
	Unique      bool
	Sparse      bool
	ExpireAfter int
}

// collection opens a collection of a database, with a clear error when
// either is missing.
func (g *Conn) collection(ctx context.Context, database, name string) (arangodb.Collection, error) {
	db, err := g.Database(ctx, database)
	if err != nil {
		return nil, err
	}
	c, err := db.GetCollection(ctx, name, nil)
	if err != nil {
		if IsNotFound(err) {
			return nil, fmt.Errorf("no collection %q in database %q", name, database)
		}
		return nil, Error(err)
	}
	return c, nil
}

// indexOf is an index response as listed.
func indexOf(r arangodb.IndexResponse) Index {
	ix := Index{ID: r.ID, Name: r.Name, Type: string(r.Type)}
	if r.Unique != nil {
		ix.Unique = *r.Unique
	}
	if r.Sparse != nil {
		ix.Sparse = *r.Sparse
	}
	if r.RegularIndex != nil {
		ix.Fields = r.RegularIndex.Fields
		if r.RegularIndex.ExpireAfter != nil {
			ix.ExpireAfter = *r.RegularIndex.ExpireAfter
		}
	}
	if ix.Fields == nil {
		ix.Fields = []string{}
	}
	return ix
}

// CreateIndex makes an index of a collection, or finds the one of the same
// definition; created tells which.
func (g *Conn) CreateIndex(ctx context.Context, database, collection string, spec IndexSpec) (Index, bool, error) {
	if len(spec.Fields) == 0 {
		return Index{}, false, fmt.Errorf("an index needs one or more fields")
	}
	c, err := g.collection(ctx, database, collection)
	if err != nil {
		return Index{}, false, err
	}
	var r arangodb.IndexResponse
	var created bool
	switch spec.Type {
	case "", "persistent":
		r, created, err = c.EnsurePersistentIndex(ctx, spec.Fields, &arangodb.CreatePersistentIndexOptions{
			Name: spec.Name, Unique: &spec.Unique, Sparse: &spec.Sparse})
	case "ttl":
		if len(spec.Fields) != 1 {
			return Index{}, false, fmt.Errorf("a ttl index has one field, not %d", len(spec.Fields))
		}
		r, created, err = c.EnsureTTLIndex(ctx, spec.Fields, spec.ExpireAfter, &arangodb.CreateTTLIndexOptions{Name: spec.Name})
	default:
		return Index{}, false, fmt.Errorf("index type %q: persistent or ttl", spec.Type)
	}
	if err != nil {
		return Index{}, false, Error(err)
	}
	return indexOf(r), created, nil
}

// Indexes returns a collection's indexes: the primary index first (and an
// edge collection's edge index), then the others in the order made.
func (g *Conn) Indexes(ctx context.Context, database, collection string) ([]Index, error) {
	c, err := g.collection(ctx, database, collection)
	if err != nil {
		return nil, err
	}
	list, err := c.Indexes(ctx)
	if err != nil {
		return nil, Error(err)
	}
	out := make([]Index, 0, len(list))
	for _, r := range list {
		out = append(out, indexOf(r))
	}
	return out, nil
}

// DropIndex deletes an index of a collection, named by its name or id
// ("collection/123" or "123").
func (g *Conn) DropIndex(ctx context.Context, database, collection, index string) error {
	c, err := g.collection(ctx, database, collection)
	if err != nil {
		return err
	}
	list, err := c.Indexes(ctx)
	if err != nil {
		return Error(err)
	}
	i := slices.IndexFunc(list, func(r arangodb.IndexResponse) bool {
		return r.Name == index || r.ID == index || strings.TrimPrefix(r.ID, collection+"/") == index
	})
	if i < 0 {
		return fmt.Errorf("no index %q on collection %q", index, collection)
	}
	if t := list[i].Type; t == arangodb.PrimaryIndexType || t == arangodb.EdgeIndexType {
		return fmt.Errorf("the %s index of a collection cannot be dropped", t)
	}
	return Error(c.DeleteIndexByID(ctx, list[i].ID))
}
