package graphdb_test

import (
	"context"
	"net"
	"net/http"
	"slices"
	"testing"

	"github.com/arangodb/go-driver/v2/arangodb"
	"github.com/arangodb/go-driver/v2/arangodb/shared"
	"github.com/arangodb/go-driver/v2/connection"
	"github.com/fabricops/fabric/fabric/lib/graphstore"
	"github.com/fabricops/fabric/fabric/pods/graphdb"
)

// serve starts a graph database server on 127.0.0.1 over a store in a
// temporary directory and returns its URL.
func serve(t *testing.T, dir string) string {
	t.Helper()
	st, err := graphstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: graphdb.New(st, graphdb.Options{User: "root", Password: "secret"}).Handler(), Protocols: graphdb.Protocols()}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close(); st.Close() })
	return "http://" + ln.Addr().String()
}

// clients are the ways the driver reaches the server: HTTP/1.1 with basic
// auth, and h2c with the JWT login.
func clients(t *testing.T, url string, user, password string) map[string]arangodb.Client {
	t.Helper()
	ep := connection.NewRoundRobinEndpoints([]string{url})
	basic := connection.NewHttpConnection(connection.HttpConfiguration{Endpoint: ep, ContentType: connection.ApplicationJSON})
	if err := basic.SetAuthentication(connection.NewBasicAuth(user, password)); err != nil {
		t.Fatal(err)
	}
	h2 := connection.NewHttp2Connection(connection.DefaultHTTP2ConfigurationWrapper(ep, false))
	return map[string]arangodb.Client{
		"http1-basic": arangodb.NewClient(basic),
		"h2c-jwt":     arangodb.NewClient(connection.NewJWTAuthWrapper(user, password)(h2)),
	}
}

// openDB starts a server and returns a database named name on it, through
// the client of the given transport ("http1-basic" or "h2c-jwt").
func openDB(t *testing.T, transport, name string) arangodb.Database {
	t.Helper()
	c := clients(t, serve(t, t.TempDir()), "root", "secret")[transport]
	ctx := context.Background()
	if _, err := c.Version(ctx); err != nil { // the JWT login happens here
		t.Fatal(err)
	}
	db, err := c.CreateDatabase(ctx, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// TestDatabases: through the official driver, over HTTP/1.1 with basic
// auth and over h2c with a JWT: the version, creating, listing, finding
// and dropping databases, and ArangoDB's errors for a duplicate, a bad
// name, a missing database and bad credentials.
func TestDatabases(t *testing.T) {
	url := serve(t, t.TempDir())
	ctx := context.Background()
	for name, c := range clients(t, url, "root", "secret") {
		t.Run(name, func(t *testing.T) {
			v, err := c.Version(ctx)
			if err != nil || v.Server != "arango" || v.Version != graphdb.Version {
				t.Fatalf("version: %+v %v", v, err)
			}
			db, err := c.CreateDatabase(ctx, "db-"+name, nil)
			if err != nil {
				t.Fatal(err)
			}
			if db.Name() != "db-"+name {
				t.Errorf("database %q", db.Name())
			}
			_, err = c.CreateDatabase(ctx, "db-"+name, nil)
			if !shared.IsConflict(err) || !shared.IsArangoErrorWithErrorNum(err, 1207) {
				t.Errorf("a duplicate database: %v", err)
			}
			if _, err := c.CreateDatabase(ctx, "9-bad name", nil); !shared.IsArangoErrorWithErrorNum(err, 1229) {
				t.Errorf("a bad database name: %v", err)
			}
			names, err := c.Databases(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range names {
				got = append(got, d.Name())
			}
			if !slices.Contains(got, "_system") || !slices.Contains(got, "db-"+name) {
				t.Errorf("databases %v", got)
			}
			if ok, err := c.DatabaseExists(ctx, "db-"+name); !ok || err != nil {
				t.Errorf("exists: %v %v", ok, err)
			}
			info, err := db.Info(ctx)
			if err != nil || info.Name != "db-"+name || info.IsSystem {
				t.Errorf("info: %+v %v", info, err)
			}
			if err := db.Remove(ctx); err != nil {
				t.Fatal(err)
			}
			if ok, err := c.DatabaseExists(ctx, "db-"+name); ok || err != nil {
				t.Errorf("exists after drop: %v %v", ok, err)
			}
			if _, err := c.GetDatabase(ctx, "db-"+name, nil); !shared.IsArangoErrorWithErrorNum(err, 1228) {
				t.Errorf("a dropped database: %v", err)
			}
		})
	}
	for name, c := range clients(t, url, "root", "wrong") {
		if _, err := c.Version(ctx); err == nil {
			t.Errorf("%s: bad credentials let in", name)
		}
	}
}

// TestDatabasesSurviveRestart: a database and a collection created before
// the store is closed are there when it opens again.
func TestDatabasesSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	st, err := graphstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateDatabase("kept"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateCollection("kept", "edges", graphstore.EdgeCollection, false, false, graphstore.KeyOptions{}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st, err = graphstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got := st.Databases(); !slices.Equal(got, []string{"_system", "kept"}) {
		t.Errorf("databases after a restart: %v", got)
	}
	if c, err := st.Collection("kept", "edges"); err != nil || c.Type != graphstore.EdgeCollection {
		t.Errorf("collection after a restart: %+v %v", c, err)
	}
}
