// Package store keeps a tenant's artifacts in its JetStream: files (dataset
// data, objects) as blobs in the Object Store, and JSON records in one KV
// bucket per kind. A blob replaced under a record is swapped only once the
// new one is fully stored, so a failure midway leaves the old version
// readable and no partial chunks behind.
package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// ErrNotFound is returned for a missing record or blob.
var ErrNotFound = errors.New("not found")

// ErrExists is returned by Create when the record is there already.
var ErrExists = errors.New("exists")

// Timeout bounds one metadata operation (a record, a listing).
const Timeout = 10 * time.Second

// Store is a tenant's artifact store.
type Store struct {
	js      jetstream.JetStream
	objMu   sync.Mutex            // guards objects
	objects jetstream.ObjectStore // once looked up (objectStore)
	bucket  string                // the object store's name
	mu      sync.Mutex            // guards kvs and chunks: a store is shared by concurrent jobs
	kvs     map[string]jetstream.KeyValue
	chunks  jetstream.Stream // the object store's stream, once looked up
}

// Open opens the tenant's store: its object store and record buckets are
// looked up (created when missing) on first use.
func Open(ctx context.Context, nc *nats.Conn) (*Store, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	return &Store{js: js, bucket: api.ObjectsBucket, kvs: map[string]jetstream.KeyValue{}}, nil
}

// objectStore returns the tenant's object store, looked up (created when
// missing) on first use: a command that reads only records, as most of
// the lean client's do, never asks for the stream's information.
func (s *Store) objectStore(ctx context.Context) (jetstream.ObjectStore, error) {
	s.objMu.Lock()
	defer s.objMu.Unlock()
	if s.objects != nil {
		return s.objects, nil
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	obs, err := EnsureObjectStore(ctx, s.js, s.bucket)
	if err != nil {
		return nil, fmt.Errorf("object store %s: %w", s.bucket, err)
	}
	s.objects = obs
	return obs, nil
}

func (s *Store) kv(ctx context.Context, bucket string) (jetstream.KeyValue, error) {
	return s.KV(ctx, jetstream.KeyValueConfig{Bucket: bucket, History: 1})
}

// KV returns the tenant's KV bucket of cfg.Bucket, created with cfg when
// it does not exist (looked up once per store).
func (s *Store) KV(ctx context.Context, cfg jetstream.KeyValueConfig) (jetstream.KeyValue, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if kv, ok := s.kvs[cfg.Bucket]; ok {
		return kv, nil
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	kv, err := EnsureKV(ctx, s.js, cfg)
	if err != nil {
		return nil, fmt.Errorf("records %s: %w", cfg.Bucket, err)
	}
	s.kvs[cfg.Bucket] = kv
	return kv, nil
}

// Replicas is how many copies the fabric keeps of a bucket it creates: 3
// on a cluster of three servers or more, so that a server's death loses
// no acknowledged write and stops no bucket; as many as the servers of a
// smaller cluster; 1 on a single server.
func Replicas(nc *nats.Conn) int {
	if nc == nil || nc.ConnectedClusterName() == "" {
		return 1
	}
	return min(3, max(1, len(nc.Servers())))
}

// EnsureKV returns a KV bucket, creating it with cfg when it does not
// exist; pods starting together may race to create it.
func EnsureKV(ctx context.Context, js jetstream.JetStream, cfg jetstream.KeyValueConfig) (jetstream.KeyValue, error) {
	kv, err := js.KeyValue(ctx, cfg.Bucket)
	if err == nil {
		return kv, nil
	}
	if !errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, err
	}
	if cfg.Replicas == 0 {
		cfg.Replicas = Replicas(js.Conn())
	}
	kv, err = js.CreateKeyValue(ctx, cfg)
	if err != nil {
		if kv2, err2 := js.KeyValue(ctx, cfg.Bucket); err2 == nil {
			return kv2, nil
		}
		return nil, err
	}
	return kv, nil
}

// EnsureObjectStore returns the named object store, creating it when it
// does not exist.
func EnsureObjectStore(ctx context.Context, js jetstream.JetStream, bucket string) (jetstream.ObjectStore, error) {
	obs, err := js.ObjectStore(ctx, bucket)
	if err == nil {
		return obs, nil
	}
	if !errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, err
	}
	obs, err = js.CreateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: bucket, Description: "tenant objects and datasets",
		Replicas: Replicas(js.Conn())})
	if err != nil {
		if o2, err2 := js.ObjectStore(ctx, bucket); err2 == nil {
			return o2, nil
		}
		return nil, err
	}
	return obs, nil
}

// Key turns a name into a KV key: letters, digits, '-' and '_' stay, and
// every other byte is written as =XX, so that any name is a valid key and
// keys sort and read like names. Path parts keep their '/'.
func Key(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_':
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "=%02X", c)
		}
	}
	if b.Len() == 0 {
		return "=" // the empty name
	}
	return b.String()
}

// Get reads the record key of bucket into v and returns its revision.
func (s *Store) Get(ctx context.Context, bucket, key string, v any) (uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	kv, err := s.kv(ctx, bucket)
	if err != nil {
		return 0, err
	}
	var e jetstream.KeyValueEntry
	err = Retry(ctx, func(ctx context.Context) (err error) {
		e, err = kv.Get(ctx, key)
		return err
	})
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return 0, ErrNotFound
	}
	if err != nil {
		return 0, timeout(err, "reading a record")
	}
	if err := json.Unmarshal(e.Value(), v); err != nil {
		return 0, fmt.Errorf("record %s/%s is corrupt: %v", bucket, key, err)
	}
	return e.Revision(), nil
}

// Put writes v as the record key of bucket. With rev > 0 the record must
// still be at that revision (no one changed it meanwhile); with rev 0 any
// record is replaced.
func (s *Store) Put(ctx context.Context, bucket, key string, v any, rev uint64) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	kv, err := s.kv(ctx, bucket)
	if err != nil {
		return err
	}
	if rev > 0 {
		_, err = kv.Update(ctx, key, data, rev)
		if err != nil {
			return fmt.Errorf("%s was changed by someone else meanwhile; try again", key)
		}
		return nil
	}
	_, err = kv.Put(ctx, key, data)
	return timeout(err, "writing a record")
}

// Create writes v as the record key of bucket only when there is no such
// record yet (ErrExists otherwise): two writers racing for a key cannot
// both win.
func (s *Store) Create(ctx context.Context, bucket, key string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	kv, err := s.kv(ctx, bucket)
	if err != nil {
		return err
	}
	_, err = kv.Create(ctx, key, data)
	if errors.Is(err, jetstream.ErrKeyExists) {
		return ErrExists
	}
	return timeout(err, "writing a record")
}

// Delete removes the record key of bucket.
func (s *Store) Delete(ctx context.Context, bucket, key string) error {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	kv, err := s.kv(ctx, bucket)
	if err != nil {
		return err
	}
	return timeout(kv.Purge(ctx, key), "deleting a record")
}

// List returns every record of bucket, ordered by key.
func (s *Store) List(ctx context.Context, bucket string) ([]json.RawMessage, error) {
	kv, err := s.kv(ctx, bucket)
	if err != nil {
		return nil, err
	}
	entries, err := Entries(ctx, kv)
	if err != nil {
		return nil, err
	}
	out := make([]json.RawMessage, len(entries))
	for i, e := range entries {
		out[i] = e.Value()
	}
	return out, nil
}

// Entries returns the latest entry of every key of kv, ordered by key, in
// one pass (a watch of the current values, not a get per key); deleted
// keys are left out.
//
// A record changed while it is listed is not missed: the watch's first
// values are the last of each key when it starts, and in a bucket that
// keeps one revision a key's value can be replaced (and its message
// removed) before the watch reaches it, its new value coming after the
// watch says the first values are in. So the watch goes on until it has
// seen the bucket's last message as of that moment (or a moment passes
// with nothing more).
func Entries(ctx context.Context, kv jetstream.KeyValue) ([]jetstream.KeyValueEntry, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	w, err := kv.WatchAll(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %v", kv.Bucket(), err)
	}
	defer w.Stop()
	latest := map[string]jetstream.KeyValueEntry{}
	var seen, target uint64
	caughtUp := false
	done := func() []jetstream.KeyValueEntry {
		out := make([]jetstream.KeyValueEntry, 0, len(latest))
		for _, e := range latest {
			out = append(out, e)
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Key() < out[j].Key() })
		return out
	}
	var idle <-chan time.Time
	for {
		select {
		case e, ok := <-w.Updates():
			if !ok {
				return done(), nil
			}
			if e == nil {
				caughtUp = true
				if st, err := kv.Status(ctx); err == nil {
					if bs, ok := st.(*jetstream.KeyValueBucketStatus); ok && bs.StreamInfo() != nil {
						target = bs.StreamInfo().State.LastSeq
					}
				}
				if seen >= target {
					return done(), nil
				}
				idle = time.After(settle)
				continue
			}
			if e.Operation() == jetstream.KeyValuePut {
				latest[e.Key()] = e
			} else {
				delete(latest, e.Key())
			}
			seen = max(seen, e.Revision())
			if caughtUp {
				if seen >= target {
					return done(), nil
				}
				idle = time.After(settle)
			}
		case <-idle:
			return done(), nil // the last message went (expired) before it came
		case <-ctx.Done():
			return nil, fmt.Errorf("timed out after %s listing %s", Timeout, kv.Bucket())
		}
	}
}

// settle is how long a listing waits for the changes made while it read
// before it takes that none will come.
const settle = 250 * time.Millisecond

// Keys returns the keys of every record of bucket, sorted, without reading
// the records.
func (s *Store) Keys(ctx context.Context, bucket string) ([]string, error) {
	return s.KeysMatching(ctx, bucket, "")
}

// KeysMatching returns the keys of bucket's records that match filter (a
// subject filter: "name.*" is every key of two tokens starting with the
// token "name"; "" is every key), sorted, without reading the records.
func (s *Store) KeysMatching(ctx context.Context, bucket, filter string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	kv, err := s.kv(ctx, bucket)
	if err != nil {
		return nil, err
	}
	var lister jetstream.KeyLister
	if filter == "" {
		lister, err = kv.ListKeys(ctx)
	} else {
		lister, err = kv.ListKeysFiltered(ctx, filter)
	}
	if err != nil {
		return nil, timeout(err, "listing "+bucket)
	}
	defer lister.Stop()
	var keys []string
	for k := range lister.Keys() {
		keys = append(keys, k)
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("timed out after %s listing %s", Timeout, bucket)
	}
	sort.Strings(keys)
	return keys, nil
}

// Watch watches the records of bucket until the watcher stops: it sends
// every current record, a nil entry, then every change.
func (s *Store) Watch(ctx context.Context, bucket string) (jetstream.KeyWatcher, error) {
	kv, err := s.kv(ctx, bucket)
	if err != nil {
		return nil, err
	}
	return kv.WatchAll(context.Background())
}

// WatchKey watches one record of bucket: its current value first, then
// every change, until ctx ends or the watcher is stopped.
func (s *Store) WatchKey(ctx context.Context, bucket, key string) (jetstream.KeyWatcher, error) {
	kv, err := s.kv(ctx, bucket)
	if err != nil {
		return nil, err
	}
	return kv.Watch(ctx, key)
}

// ListOf returns every record of bucket that decodes as a T, ordered by
// key; records that do not decode are left out. The slice is empty, not
// nil, when there are none.
func ListOf[T any](ctx context.Context, s *Store, bucket string) ([]T, error) {
	raw, err := s.List(ctx, bucket)
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, len(raw))
	for _, r := range raw {
		var v T
		if json.Unmarshal(r, &v) == nil {
			out = append(out, v)
		}
	}
	return out, nil
}

// PutBlob stores r's content at path and returns its size. A failed put
// leaves nothing behind; an existing blob at path is replaced only when the
// new content is complete.
//
// Cancelling ctx stops the put and removes the chunks stored so far. (The
// object store purges a failed put's chunks with the put's own context,
// which fails once that context is cancelled; so the put runs on a context
// that is not, and ctx stops it through the reader instead.)
func (s *Store) PutBlob(ctx context.Context, path string, r io.Reader) (int64, error) {
	obs, err := s.objectStore(ctx)
	if err != nil {
		return 0, fmt.Errorf("storing %s: %w", path, err)
	}
	info, err := obs.Put(context.WithoutCancel(ctx), jetstream.ObjectMeta{Name: path}, ctxReader{ctx, r})
	if err == nil && ctx.Err() != nil {
		// Cancelled after the last read: the blob is whole, but the
		// caller gave up on it and will not record it.
		_ = s.DeleteBlob(ctx, path)
		err = ctx.Err()
	}
	if err != nil {
		return 0, fmt.Errorf("storing %s: %w", path, limited(err))
	}
	return int64(info.Size), nil
}

// BlobSize returns the size of the blob at path, or ErrNotFound.
func (s *Store) BlobSize(ctx context.Context, path string) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	var info *jetstream.ObjectInfo
	err := Retry(ctx, func(ctx context.Context) error {
		obs, err := s.objectStore(ctx)
		if err == nil {
			info, err = obs.GetInfo(ctx, path)
		}
		return err
	})
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return 0, ErrNotFound
	}
	if err != nil {
		return 0, err
	}
	return int64(info.Size), nil
}

// DeleteBlob removes the blob at path; a missing blob is not an error.
//
// A delete runs to its end even when ctx is cancelled (within Timeout):
// it is how a failed or interrupted write cleans up after itself.
func (s *Store) DeleteBlob(ctx context.Context, path string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), Timeout)
	defer cancel()
	obs, err := s.objectStore(ctx)
	if err != nil {
		return timeout(err, "deleting "+path)
	}
	err = obs.Delete(ctx, path)
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return nil
	}
	return timeout(err, "deleting "+path)
}

// Blobs lists the paths of every stored blob.
func (s *Store) Blobs(ctx context.Context) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	obs, err := s.objectStore(ctx)
	if err != nil {
		return nil, err
	}
	infos, err := obs.List(ctx)
	if errors.Is(err, jetstream.ErrNoObjectsFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, i := range infos {
		out = append(out, i.Name)
	}
	sort.Strings(out)
	return out, nil
}

// Bucket opens (creating when missing) another object store bucket, for
// copy-to-objstore entries that name one.
func (s *Store) Bucket(ctx context.Context, name string) (*Store, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	obs, err := EnsureObjectStore(ctx, s.js, name)
	if err != nil {
		return nil, fmt.Errorf("object store %s: %w", name, err)
	}
	return &Store{js: s.js, objects: obs, bucket: name, kvs: map[string]jetstream.KeyValue{}}, nil
}

func timeout(err error, what string) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("timed out after %s %s", Timeout, what)
	}
	return limited(err)
}

// ErrLimit is the cause of a write refused because the tenant is at its
// JetStream limits (storage, memory, streams).
var ErrLimit = errors.New("the tenant's storage limit is reached: delete data it no longer needs ('client fabric gc' reclaims what nothing points at), or ask for a larger limit")

// JetStream's error codes for an account at its limits.
var limitCodes = map[jetstream.ErrorCode]bool{
	10002: true, // resource limits exceeded for account
	10023: true, // insufficient resources
	10027: true, // maximum number of streams reached
	10028: true, // insufficient memory resources available
	10047: true, // insufficient storage resources available
}

// limited turns JetStream's refusal of a write at the account's limits
// into ErrLimit.
func limited(err error) error {
	var api *jetstream.APIError
	if errors.As(err, &api) && limitCodes[api.ErrorCode] {
		return fmt.Errorf("%w (%s)", ErrLimit, api.Description)
	}
	return err
}

// ctxReader reads r until ctx ends, then fails with ctx's error.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

// Read fills p (short only at the end): the object store makes a chunk
// of each Read, and chunks of one size let a reader find any offset
// without reading what comes before it (see BlobFile).
func (c ctxReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if err := c.ctx.Err(); err != nil {
			return n, err
		}
		m, err := c.r.Read(p[n:])
		n += m
		if err == io.EOF {
			if n > 0 {
				return n, nil
			}
			return 0, io.EOF
		}
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// JetStream returns the tenant's JetStream context (for streams, which
// are not records of the store).
func (s *Store) JetStream() jetstream.JetStream { return s.js }
