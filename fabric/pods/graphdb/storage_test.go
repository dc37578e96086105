package graphdb_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/bus"
)

// post sends body as JSON to a tenant's graph database and decodes the
// answer, error or not.
func post(t *testing.T, g bus.GraphDBConfig, path string, body any) arangoAnswer {
	t.Helper()
	data, _ := json.Marshal(body)
	req, err := http.NewRequest(http.MethodPost, g.URL+path, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth(g.User, g.Password)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	var a arangoAnswer
	_ = json.NewDecoder(resp.Body).Decode(&a)
	a.Status = resp.StatusCode
	return a
}

// TestHostileGraphDBStorageLimit: a tenant that fills its graph store
// up to its storage limit (its JetStream account's max storage) gets
// ArangoDB's "resource limit exceeded" in one line naming the limit, and
// still reads; another tenant of the same process still writes.
func TestHostileGraphDBStorageLimit(t *testing.T) {
	const limit = 8 << 20
	f := fabrictest.Start(t, fabrictest.Options{Tenants: []string{"greedy", "other"}, Pods: []string{api.GraphDB},
		Limits: bus.Limits{MaxStorage: limit}})
	greedy, other := f.Configs["greedy"].GraphDB, f.Configs["other"].GraphDB
	for _, g := range []bus.GraphDBConfig{greedy, other} {
		if a := post(t, g, "/_api/collection", map[string]any{"name": "c"}); a.Error {
			t.Fatalf("creating a collection: %+v", a)
		}
	}
	pad := strings.Repeat("x", 1<<10)
	var refused arangoAnswer
	for i := 0; i < 40 && !refused.Error; i++ { // 40 MB at most
		batch := make([]map[string]any, 1024)
		for j := range batch {
			batch[j] = map[string]any{"_key": fmt.Sprintf("k%d-%d", i, j), "pad": pad}
		}
		refused = post(t, greedy, "/_api/document/c", batch)
	}
	if !refused.Error || refused.ErrorNum != 32 || !strings.Contains(refused.ErrorMessage, "storage limit of ") || strings.Contains(refused.ErrorMessage, "\n") {
		t.Fatalf("writing past the tenant's storage limit: %+v; want errorNum 32 naming the limit in one line", refused)
	}
	t.Logf("the refusal: %d %s", refused.Status, refused.ErrorMessage)
	if a := post(t, greedy, "/_api/cursor", map[string]any{"query": "RETURN LENGTH(c)"}); a.Error {
		t.Errorf("a read at the limit: %+v", a)
	}
	if a := post(t, other, "/_api/document/c", map[string]any{"_key": "one", "pad": pad}); a.Error {
		t.Errorf("another tenant's write: %+v", a)
	}
}
