package graphdb_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/arangodb/go-driver/v2/arangodb"
	"github.com/arangodb/go-driver/v2/arangodb/shared"
	"github.com/fabricops/fabric/fabric/lib/graphstore"
	"github.com/fabricops/fabric/fabric/pods/graphdb"
)

// TestTransactions: through the driver, a stream transaction that writes
// to two collections is seen by its own requests (documents and an AQL
// query) and by no other reader until it commits; aborted, it leaves
// nothing; a document it wrote is locked against other writers.
func TestTransactions(t *testing.T) {
	for name, c := range clients(t, serve(t, t.TempDir()), "root", "secret") {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			db, err := c.CreateDatabase(ctx, "tx-"+name, nil)
			if err != nil {
				t.Fatal(err)
			}
			a, _ := db.CreateCollectionV2(ctx, "a", nil)
			b, _ := db.CreateCollectionV2(ctx, "b", nil)
			if _, err := a.CreateDocument(ctx, map[string]any{"_key": "locked", "v": 1}); err != nil {
				t.Fatal(err)
			}
			for _, commit := range []bool{false, true} {
				tx, err := db.BeginTransaction(ctx, arangodb.TransactionCollections{Write: []string{"a", "b"}}, nil)
				if err != nil {
					t.Fatal(err)
				}
				ta, _ := tx.GetCollection(ctx, "a", nil)
				tb, _ := tx.GetCollection(ctx, "b", nil)
				key := fmt.Sprint("k-", commit)
				if _, err := ta.CreateDocument(ctx, map[string]any{"_key": key}); err != nil {
					t.Fatal(err)
				}
				if _, err := tb.CreateDocument(ctx, map[string]any{"_key": key}); err != nil {
					t.Fatal(err)
				}
				if _, err := ta.UpdateDocument(ctx, "locked", map[string]any{"v": 2}); err != nil {
					t.Fatal(err)
				}
				if ok, err := tb.DocumentExists(ctx, key); err != nil || !ok {
					t.Errorf("the transaction does not see its write: %v %v", ok, err)
				}
				if ok, err := b.DocumentExists(ctx, key); err != nil || ok {
					t.Errorf("a reader outside sees the uncommitted write: %v %v", ok, err)
				}
				cur, err := tx.Query(ctx, "FOR d IN b FILTER d._key == @k RETURN d._key", &arangodb.QueryOptions{BindVars: map[string]any{"k": key}})
				if err != nil {
					t.Fatal(err)
				}
				if cur.Count() != 0 && !cur.HasMore() {
					t.Errorf("a query in the transaction does not see its write")
				}
				cur.Close()
				cur, err = db.Query(ctx, "FOR d IN b RETURN d._key", &arangodb.QueryOptions{Count: true})
				if err != nil {
					t.Fatal(err)
				}
				if n := cur.Count(); commit && n != 0 || !commit && n != 0 {
					t.Errorf("a query outside sees %d uncommitted documents", n)
				}
				cur.Close()
				if _, err := a.UpdateDocument(ctx, "locked", map[string]any{"v": 3}); !shared.IsOperationTimeout(err) && !shared.IsConflict(err) {
					t.Errorf("a write outside to a document the transaction wrote: %v", err)
				}
				if commit {
					err = tx.Commit(ctx, nil)
				} else {
					err = tx.Abort(ctx, nil)
				}
				if err != nil {
					t.Fatal(err)
				}
				for _, col := range []arangodb.Collection{a, b} {
					if ok, err := col.DocumentExists(ctx, key); err != nil || ok != commit {
						t.Errorf("commit %v: %s/%s exists %v, %v", commit, col.Name(), key, ok, err)
					}
				}
				status, err := tx.Status(ctx)
				want := map[bool]arangodb.TransactionStatus{false: arangodb.TransactionAborted, true: arangodb.TransactionCommitted}[commit]
				if err != nil || status.Status != want {
					t.Errorf("status %v %v, want %v", status, err, want)
				}
			}
			var doc map[string]any
			if _, err := a.ReadDocument(ctx, "locked", &doc); err != nil || fmt.Sprint(doc["v"]) != "2" {
				t.Errorf("after the commit, the locked document: %v %v", doc, err)
			}
		})
	}
}

// TestTransactionLimits: an idle transaction is aborted after the idle
// timeout; at most MaxTransactions run at once.
func TestTransactionLimits(t *testing.T) {
	st, err := graphstore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: graphdb.New(st, graphdb.Options{User: "root", Password: "secret", TxnIdleTimeout: 500 * time.Millisecond, Logf: func(string, ...any) {}}).Handler(), Protocols: graphdb.Protocols()}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close(); st.Close() })
	url := "http://" + ln.Addr().String()
	begin := func() (int, string) {
		code, _, data := raw(t, url, "POST", "/_api/transaction/begin", nil, map[string]any{"collections": map[string]any{}})
		return code, string(data)
	}
	code, data := begin()
	if code != 201 {
		t.Fatalf("begin: %d %s", code, data)
	}
	var began struct {
		Result struct{ ID string } `json:"result"`
	}
	if err := json.Unmarshal([]byte(data), &began); err != nil || began.Result.ID == "" {
		t.Fatalf("begin: %s: %v", data, err)
	}
	id := began.Result.ID
	for i := 1; i < graphdb.MaxTransactions; i++ {
		if code, data := begin(); code != 201 {
			t.Fatalf("transaction %d: %d %s", i+1, code, data)
		}
	}
	if code, data := begin(); code != 400 {
		t.Errorf("transaction %d: %d %s, want 400 (resource limit)", graphdb.MaxTransactions+1, code, data)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		code, _, data := raw(t, url, "GET", "/_api/transaction", nil, nil)
		if code == 200 && string(data) == `{"code":200,"error":false,"transactions":[]}` {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("idle transactions still running after 5 s: %s", data)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if code, _, data := raw(t, url, "PUT", "/_api/transaction/"+id, nil, nil); code != 409 {
		t.Errorf("committing a transaction aborted for idling: %d %s", code, data)
	}
}

// TestQueryWritesAreAtomic: a query's writes are one transaction: a
// query that writes two collections and then fails leaves neither
// written; one that runs in a stream transaction is seen only in it until
// it commits.
func TestQueryWritesAreAtomic(t *testing.T) {
	url := serve(t, t.TempDir())
	for _, c := range []string{"a", "b"} {
		if code, _, data := raw(t, url, "POST", "/_api/collection", nil, map[string]any{"name": c}); code != 200 {
			t.Fatalf("%d %s", code, data)
		}
	}
	count := func(coll string, header map[string]string) int {
		t.Helper()
		code, _, data := raw(t, url, "POST", "/_api/cursor", header, map[string]any{"query": "RETURN LENGTH((FOR d IN " + coll + " RETURN 1))"})
		var out struct{ Result []int }
		if err := json.Unmarshal(data, &out); code != 201 || err != nil || len(out.Result) != 1 {
			t.Fatalf("count %s: %d %s", coll, code, data)
		}
		return out.Result[0]
	}
	// The second operation fails (a key the first wrote into b is taken
	// again): the first's writes into a are not kept either.
	query := "FOR i IN 1..3 INSERT {_key: TO_STRING(i)} INTO a LET x = (FOR j IN 1..2 INSERT {_key: 'same'} INTO b) RETURN i"
	if code, _, data := raw(t, url, "POST", "/_api/cursor", nil, map[string]any{"query": query}); code < 400 {
		t.Fatalf("the failing query: %d %s", code, data)
	}
	if na, nb := count("a", nil), count("b", nil); na != 0 || nb != 0 {
		t.Errorf("after a failed query: %d documents in a, %d in b", na, nb)
	}
	// In a stream transaction.
	code, _, data := raw(t, url, "POST", "/_api/transaction/begin", nil, map[string]any{"collections": map[string]any{"write": []string{"a", "b"}}})
	var began struct {
		Result struct{ ID string } `json:"result"`
	}
	if err := json.Unmarshal(data, &began); code != 201 || err != nil {
		t.Fatalf("begin: %d %s", code, data)
	}
	trx := map[string]string{"x-arango-trx-id": began.Result.ID}
	if code, _, data := raw(t, url, "POST", "/_api/cursor", trx, map[string]any{"query": "FOR i IN 1..5 INSERT {n: i} INTO a LET x = (INSERT {n: i} INTO b) RETURN i"}); code != 201 {
		t.Fatalf("writing in the transaction: %d %s", code, data)
	}
	if in, out := count("a", trx), count("a", nil); in != 5 || out != 0 {
		t.Errorf("before commit: the transaction sees %d, others %d", in, out)
	}
	if code, _, data := raw(t, url, "PUT", "/_api/transaction/"+began.Result.ID, nil, nil); code != 200 {
		t.Fatalf("commit: %d %s", code, data)
	}
	if na, nb := count("a", nil), count("b", nil); na != 5 || nb != 5 {
		t.Errorf("after commit: %d in a, %d in b", na, nb)
	}
}
