package graphdb_test

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/lib/aql"
	"github.com/fabricops/fabric/fabric/lib/graphstore"
	"github.com/fabricops/fabric/fabric/pods/graphdb"
)

// TestHostileOpenCursors: a tenant that opens cursors and never reads
// them holds no more than its open cursors' limit; past it a query is
// refused with ArangoDB's resource limit error, and deleting a cursor
// makes room again.
func TestHostileOpenCursors(t *testing.T) {
	st, err := graphstore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: graphdb.New(st, graphdb.Options{User: "root", Password: "secret",
		Limits: aql.Limits{CursorBytes: 4 << 20}}).Handler()}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close(); st.Close() })
	g := bus.GraphDBConfig{URL: "http://" + ln.Addr().String(), User: "root", Password: "secret"}
	ctx := context.Background()
	big := map[string]any{"query": "FOR a IN 1..20000 RETURN CONCAT('row ', a)", "batchSize": 1}
	var refused arangoAnswer
	opened := 0
	for opened < 100 {
		a, err := query(ctx, g, big)
		if err != nil {
			t.Fatal(err)
		}
		if a.Error {
			refused = a
			break
		}
		opened++
	}
	if refused.Status != 500 || refused.ErrorNum != 32 || !strings.Contains(refused.ErrorMessage, "over their limit of 4 MB") {
		t.Fatalf("after %d open cursors: want HTTP 500 errorNum 32 naming the open cursors' limit, got %+v", opened, refused)
	}
	if opened == 0 {
		t.Fatal("not one cursor opened")
	}
	t.Logf("%d cursors opened, then: %s", opened, refused.ErrorMessage)
	req, _ := http.NewRequest(http.MethodDelete, g.URL+"/_api/cursor/1", nil)
	req.SetBasicAuth(g.User, g.Password)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 202 {
		t.Fatalf("delete: %v %v", resp, err)
	}
	resp.Body.Close()
	if a, err := query(ctx, g, big); err != nil || a.Error {
		t.Fatalf("after a cursor was deleted: %+v %v", a, err)
	}
}
