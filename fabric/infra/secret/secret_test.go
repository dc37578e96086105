package secret_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/infra/secret"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// openSecrets starts a test fabric and opens its tenant's secrets.
func openSecrets(t *testing.T) (*secret.Store, *nats.Conn) {
	t.Helper()
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	nc, err := bus.Connect(f.Configs["a"], "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	st, err := store.Open(context.Background(), nc)
	if err != nil {
		t.Fatal(err)
	}
	return &secret.Store{Store: st}, nc
}

// TestSealedAtRest: a secret's value is in no record of the tenant's
// buckets in clear (read straight from KV), opens with the tenant's key,
// is refused under another name, and no Info or error carries it.
func TestSealedAtRest(t *testing.T) {
	s, nc := openSecrets(t)
	ctx := context.Background()
	value := []byte("hunter2-very-secret-value")
	if _, err := s.Put(ctx, "db-password", "the database", value, false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(ctx, "db-password", "", []byte("other"), false); err == nil || strings.Contains(err.Error(), "other") {
		t.Fatalf("a duplicate without overwrite: %v", err)
	}
	got, err := s.Reveal(ctx, "db-password")
	if err != nil || !bytes.Equal(got, value) {
		t.Fatalf("reveal: %q %v", got, err)
	}
	js, _ := jetstream.New(nc)
	for _, bucket := range []string{secret.Bucket, secret.KeyBucket} {
		kv, err := js.KeyValue(ctx, bucket)
		if err != nil {
			t.Fatal(err)
		}
		lister, err := kv.ListKeys(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for key := range lister.Keys() {
			e, err := kv.Get(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(e.Value(), value) || bytes.Contains(e.Value(), []byte("hunter2")) {
				t.Errorf("%s/%s holds the value in clear", bucket, key)
			}
		}
	}
	// A sealed value copied under another name does not open.
	kv, _ := js.KeyValue(ctx, secret.Bucket)
	e, _ := kv.Get(ctx, "db-password")
	if _, err := kv.Put(ctx, "stolen", e.Value()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reveal(ctx, "stolen"); err == nil {
		t.Error("a value moved to another name opened")
	}
	infos, err := s.List(ctx)
	if err != nil || len(infos) != 2 {
		t.Fatalf("list: %v %v", infos, err)
	}
	if err := s.Delete(ctx, "db-password"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Info(ctx, "db-password"); !errors.Is(err, secret.ErrNotFound) {
		t.Errorf("info after delete: %v", err)
	}
}

// TestResolveRefs: references in inputs become the secrets' values in
// the copy Resolve returns, and only there; a missing secret is named
// with its path, and no error carries a value.
func TestResolveRefs(t *testing.T) {
	s, _ := openSecrets(t)
	ctx := context.Background()
	if _, err := s.Put(ctx, "db-password", "", []byte("s3cr3t-db-value"), false); err != nil {
		t.Fatal(err)
	}
	inputs := map[string]any{
		"hostname": "db.example.test",
		"secret":   map[string]any{"$secret": "db-password"},
		"more":     []any{map[string]any{"$secret": "db-password"}, "plain", map[string]any{"$secret": "db-password", "x": 1.0}},
	}
	if got := secret.Refs(inputs); len(got) != 1 || got[0] != "db-password" {
		t.Errorf("refs: %v", got)
	}
	out, err := s.Resolve(ctx, inputs)
	if err != nil {
		t.Fatal(err)
	}
	m := out.(map[string]any)
	if m["secret"] != "s3cr3t-db-value" || m["more"].([]any)[0] != "s3cr3t-db-value" || m["hostname"] != "db.example.test" {
		t.Errorf("resolved: %v", out)
	}
	if _, ok := m["more"].([]any)[2].(map[string]any); !ok {
		t.Errorf("an object with more than the reference is not a reference: %v", m["more"])
	}
	if inputs["secret"].(map[string]any)["$secret"] != "db-password" {
		t.Error("Resolve changed its inputs")
	}
	_, err = s.Resolve(ctx, map[string]any{"a": []any{map[string]any{"$secret": "nope"}}})
	if !errors.Is(err, secret.ErrNotFound) || !strings.Contains(err.Error(), `inputs.a[0]: no secret named "nope"`) {
		t.Errorf("a missing secret: %v", err)
	}
}
