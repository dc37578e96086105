package graphdb_test

import (
	"bytes"
	"compress/zlib"
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/arangodb/go-driver/v2/arangodb"
	"github.com/arangodb/go-driver/v2/connection"
	"github.com/fabricops/fabric/fabric/pods/graphdb"
)

// TestCompressedRequests: a driver that compresses its requests (deflate,
// gzip) is understood; an unknown encoding is 415; a body that expands
// past the body limit is cut off there, not read whole.
func TestCompressedRequests(t *testing.T) {
	url := serve(t, t.TempDir())
	for _, kind := range []connection.CompressionType{connection.RequestCompressionTypeDeflate, connection.RequestCompressionTypeGzip} {
		t.Run(string(kind), func(t *testing.T) {
			conn := connection.NewHttpConnection(connection.DefaultHTTPConfigurationWrapper(connection.NewRoundRobinEndpoints([]string{url}), false))
			if err := conn.SetAuthentication(connection.NewBasicAuth("root", "secret")); err != nil {
				t.Fatal(err)
			}
			cfg := conn.GetConfiguration()
			cfg.Compression = &connection.CompressionConfig{CompressionType: kind, RequestCompressionEnabled: true, RequestCompressionLevel: 9, ResponseCompressionEnabled: true}
			conn.SetConfiguration(cfg)
			ctx := context.Background()
			db, err := arangodb.NewClient(conn).CreateDatabase(ctx, "z"+string(kind), nil)
			if err != nil {
				t.Fatal(err)
			}
			col, err := db.CreateCollectionV2(ctx, "c", nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := col.CreateDocument(ctx, map[string]any{"_key": "k", "text": string(bytes.Repeat([]byte("abc"), 1000))}); err != nil {
				t.Fatal(err)
			}
			var doc map[string]any
			if _, err := col.ReadDocument(ctx, "k", &doc); err != nil || len(doc["text"].(string)) != 3000 {
				t.Fatalf("read back: %v", err)
			}
		})
	}
	req, _ := http.NewRequest("POST", url+"/_api/database", bytes.NewReader([]byte("{}")))
	req.SetBasicAuth("root", "secret")
	req.Header.Set("Content-Encoding", "br")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 415 {
		t.Errorf("an unknown encoding: %d, want 415", resp.StatusCode)
	}
	// 128 MB of zeros, deflated to about 128 KB: refused once it expands
	// past MaxInflated, not read into memory whole.
	var bomb bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&bomb, 9)
	zero := make([]byte, 1<<20)
	for i := 0; i < 2*graphdb.MaxInflated>>20; i++ {
		zw.Write(zero)
	}
	zw.Close()
	req, _ = http.NewRequest("POST", url+"/_api/database", &bomb)
	req.SetBasicAuth("root", "secret")
	req.Header.Set("Content-Encoding", "deflate")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Errorf("a body that expands to 128 MB: %d %s, want 400", resp.StatusCode, body)
	}
}
