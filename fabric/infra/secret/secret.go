// Package secret keeps a tenant's secrets (passwords, tokens, the
// $secure values of bot packages) encrypted at rest: each value is sealed
// with AES-256-GCM under the tenant's data key, bound to its name (a
// sealed value moved to another name does not open), and the data key
// lives in a bucket of its own, apart from the sealed values. Nothing in
// this package logs or formats a value; errors name secrets, never their
// contents.
package secret

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/nats-io/nats.go/jetstream"
)

// The buckets: sealed values, and the tenant's data key.
const (
	Bucket    = "fabric_secrets"
	KeyBucket = "fabric_secret_keys"
	keyName   = "data-key"
)

// Record is a stored secret: its name, description, when it was saved,
// and its sealed value.
type Record struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	SavedTime   string `json:"saved_time"`
	Nonce       []byte `json:"nonce"`
	Sealed      []byte `json:"sealed"`
}

// Info is what may be shown of a secret: never its value.
type Info struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	SavedTime   string `json:"saved_time"`
}

// ErrNotFound is the error of a missing secret (errors.Is finds it in the
// error that names the secret).
var ErrNotFound = errors.New("not found")

// missing names a missing secret, and is ErrNotFound.
type missing string

func (m missing) Error() string        { return fmt.Sprintf("no secret named %q", string(m)) }
func (m missing) Is(target error) bool { return target == ErrNotFound }

// Store reaches one tenant's secrets.
type Store struct {
	Store *store.Store
	// Now is the clock of saved_time (time.Now when nil).
	Now func() time.Time
}

func (s *Store) kv(ctx context.Context, bucket string) (jetstream.KeyValue, error) {
	return s.Store.KV(ctx, jetstream.KeyValueConfig{Bucket: bucket, History: 1})
}

// dataKey returns the tenant's data key, made on first use (two first
// uses racing agree on the one stored first).
func (s *Store) dataKey(ctx context.Context) (cipher.AEAD, error) {
	kv, err := s.kv(ctx, KeyBucket)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, store.Timeout)
	defer cancel()
	var key []byte
	if e, err := kv.Get(ctx, keyName); err == nil {
		key = e.Value()
	} else if errors.Is(err, jetstream.ErrKeyNotFound) {
		fresh := make([]byte, 32)
		if _, err := rand.Read(fresh); err != nil {
			return nil, err
		}
		if _, err := kv.Create(ctx, keyName, fresh); err == nil {
			key = fresh
		} else if errors.Is(err, jetstream.ErrKeyExists) {
			e, err := kv.Get(ctx, keyName)
			if err != nil {
				return nil, fmt.Errorf("reading the secrets key: %v", err)
			}
			key = e.Value()
		} else {
			return nil, fmt.Errorf("storing the secrets key: %v", err)
		}
	} else {
		return nil, fmt.Errorf("reading the secrets key: %v", err)
	}
	if len(key) != 32 {
		return nil, errors.New("the secrets key is corrupt")
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// Put seals value as the secret name (replacing one of that name only
// when overwrite).
func (s *Store) Put(ctx context.Context, name, description string, value []byte, overwrite bool) (Info, error) {
	if name == "" {
		return Info{}, errors.New("a secret needs a name")
	}
	if len(value) == 0 {
		return Info{}, fmt.Errorf("secret %q: the value is empty", name)
	}
	aead, err := s.dataKey(ctx)
	if err != nil {
		return Info{}, err
	}
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return Info{}, err
	}
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	rec := Record{Name: name, Description: description, SavedTime: api.Timestamp(now()), Nonce: nonce,
		Sealed: aead.Seal(nil, nonce, value, []byte(name))}
	data, err := json.Marshal(rec)
	if err != nil {
		return Info{}, err
	}
	kv, err := s.kv(ctx, Bucket)
	if err != nil {
		return Info{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, store.Timeout)
	defer cancel()
	key := store.Key(name)
	if _, err := kv.Create(ctx, key, data); errors.Is(err, jetstream.ErrKeyExists) {
		if !overwrite {
			return Info{}, fmt.Errorf("secret %q exists already (--overwrite replaces it)", name)
		}
		if _, err := kv.Put(ctx, key, data); err != nil {
			return Info{}, fmt.Errorf("storing secret %q: %v", name, err)
		}
	} else if err != nil {
		return Info{}, fmt.Errorf("storing secret %q: %v", name, err)
	}
	return info(rec), nil
}

func info(r Record) Info {
	return Info{Name: r.Name, Description: r.Description, SavedTime: r.SavedTime}
}

func (s *Store) record(ctx context.Context, name string) (Record, error) {
	kv, err := s.kv(ctx, Bucket)
	if err != nil {
		return Record{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, store.Timeout)
	defer cancel()
	e, err := kv.Get(ctx, store.Key(name))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return Record{}, missing(name)
	}
	if err != nil {
		return Record{}, fmt.Errorf("reading secret %q: %v", name, err)
	}
	var rec Record
	if err := json.Unmarshal(e.Value(), &rec); err != nil {
		return Record{}, fmt.Errorf("the record of secret %q is corrupt", name)
	}
	return rec, nil
}

// Info returns what may be shown of the secret name.
func (s *Store) Info(ctx context.Context, name string) (Info, error) {
	rec, err := s.record(ctx, name)
	return info(rec), err
}

// Reveal opens the value of the secret name.
func (s *Store) Reveal(ctx context.Context, name string) ([]byte, error) {
	rec, err := s.record(ctx, name)
	if err != nil {
		return nil, err
	}
	aead, err := s.dataKey(ctx)
	if err != nil {
		return nil, err
	}
	value, err := aead.Open(nil, rec.Nonce, rec.Sealed, []byte(rec.Name))
	if err != nil || rec.Name != name {
		return nil, fmt.Errorf("secret %q does not open with this tenant's key", name)
	}
	return value, nil
}

// List returns what may be shown of every secret, by name.
func (s *Store) List(ctx context.Context) ([]Info, error) {
	kv, err := s.kv(ctx, Bucket)
	if err != nil {
		return nil, err
	}
	entries, err := store.Entries(ctx, kv)
	if err != nil {
		return nil, err
	}
	out := []Info{}
	for _, e := range entries {
		var rec Record
		if err := json.Unmarshal(e.Value(), &rec); err != nil {
			return nil, fmt.Errorf("the record %s of the secrets is corrupt", e.Key())
		}
		out = append(out, info(rec))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Delete removes the secret name.
func (s *Store) Delete(ctx context.Context, name string) error {
	if _, err := s.record(ctx, name); err != nil {
		return err
	}
	kv, err := s.kv(ctx, Bucket)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, store.Timeout)
	defer cancel()
	if err := kv.Purge(ctx, store.Key(name)); err != nil {
		return fmt.Errorf("deleting secret %q: %v", name, err)
	}
	return nil
}
