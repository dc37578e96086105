// Package artifact is the one store of the fabric's artifact kinds
// (dashboards, dashboard groups, alert rulesets, stacks, ...): each kind
// is declared once (its name, key field, JSON Schema and checks, list
// columns, whether it is enabled and disabled, whether it prints as YAML
// or JSON), and the same repository adds, gets, lists, deletes, enables
// and disables the records of every kind. Records live in the tenant's
// JetStream KV, one bucket per kind, with their history; documents keep
// the order of their keys.
package artifact

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/nats-io/nats.go/jetstream"
)

// Kind declares an artifact kind.
type Kind struct {
	// Name names the kind in messages and the Starlark module
	// ("dashboard", "alert ruleset").
	Name string
	// Bucket is the kind's KV bucket.
	Bucket string
	// Key is the field whose value names a record ("name").
	Key string
	// Schema is the JSON Schema a document must satisfy.
	Schema string
	// Check, when set, checks a valid document further (e.g. that a
	// CFXQL condition parses); its error names the field.
	Check func(ctx context.Context, r *Repo, d *Doc) error
	// Columns are the fields of the list rows.
	Columns []string
	// Row, when set, computes fields of a list row the document does not
	// hold as such (counts).
	Row func(d *Doc) map[string]any
	// Toggle is true for kinds that are enabled and disabled (their
	// documents have a boolean "enabled", true when missing).
	Toggle bool
	// YAML is true for kinds whose get prints YAML (JSON otherwise).
	YAML bool
	// Parts, when set, names the records of the same kind that belong to
	// a record (an app's pages): they are deleted with it.
	Parts func(d *Doc) []string
	// Owner, when set, names the record a record is part of ("" when
	// none); a part its owner still lists is not deleted on its own.
	Owner func(d *Doc) string
	// UsedBy, when set, says which record of another kind still uses the
	// record name ("" when none): such a record is not deleted, and the
	// refusal names its user ("synthetic profile \"web\"").
	UsedBy func(ctx context.Context, r *Repo, name string) (string, error)

	once     sync.Once
	resolved *jsonschema.Resolved
	err      error
}

// schema compiles the kind's JSON Schema once.
func (k *Kind) schema() (*jsonschema.Resolved, error) {
	k.once.Do(func() {
		var s jsonschema.Schema
		if k.err = json.Unmarshal([]byte(k.Schema), &s); k.err != nil {
			return
		}
		k.resolved, k.err = s.Resolve(nil)
	})
	return k.resolved, k.err
}

// Record is an artifact as stored: its document and where it came from.
type Record struct {
	// Doc is the document, with saved_time (and enabled, for the kinds
	// that have it) set by the store.
	Doc *Doc `json:"doc"`
	// Source is "yaml" or "json": how the document was written.
	Source string `json:"source"`
	// Revision is the record's revision in its bucket.
	Revision uint64 `json:"-"`
	// Replaced is set by Add when the record replaced one of its name
	// (overwrite), so that the caller says "replaced", not "added".
	Replaced bool `json:"-"`
}

// MarshalJSON writes the record without re-encoding its document (which
// is JSON already).
func (r Record) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"doc":`)
	b.Write(r.Doc.JSON())
	b.WriteString(`,"source":`)
	src, _ := json.Marshal(r.Source)
	b.Write(src)
	b.WriteByte('}')
	return b.Bytes(), nil
}

// storedDoc finds the document and the source in a record as
// MarshalJSON writes it: {"doc":{...},"source":"..."}.
func storedDoc(data []byte) (raw []byte, source string, ok bool) {
	if !bytes.HasPrefix(data, []byte(`{"doc":{`)) {
		return nil, "", false
	}
	for _, src := range []string{"yaml", "json"} {
		if tail := `,"source":"` + src + `"}`; bytes.HasSuffix(data, []byte(tail)) {
			return data[len(`{"doc":`) : len(data)-len(tail)], src, true
		}
	}
	return nil, "", false
}

// decodeRecord reads a stored record: one pass over its JSON, its
// document split at the top level only.
func decodeRecord(data []byte) (Record, error) {
	if raw, src, ok := storedDoc(data); ok {
		if d, err := splitObject(raw); err == nil {
			d.text = raw // as stored: compact
			return Record{Doc: d, Source: src}, nil
		}
	}
	top, err := parseJSONObject(data)
	if err != nil {
		return Record{}, err
	}
	raw := top.Raw("doc")
	if raw == nil {
		return Record{}, errors.New("no document")
	}
	d, err := parseJSONObject(raw)
	if err != nil {
		return Record{}, err
	}
	src, _ := top.String("source")
	return Record{Doc: d, Source: src}, nil
}

// Name returns the record's key.
func (r Record) name(k *Kind) string { s, _ := r.Doc.String(k.Key); return s }

// Repo reaches the artifacts of one tenant.
type Repo struct {
	Store *store.Store
	// Now is the clock of saved_time (time.Now when nil).
	Now func() time.Time
	// Pending, when set, names the records a transaction writes before
	// the one it checks (kind nil: a pipeline): a check that looks a
	// record up finds them as if they were stored.
	Pending func(k *Kind, name string) bool
}

// has reports whether the record name of kind k exists, or is pending.
func (r *Repo) has(ctx context.Context, k *Kind, name string) (bool, error) {
	if r.Pending != nil && r.Pending(k, name) {
		return true, nil
	}
	_, err := r.Get(ctx, k, name)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

func (r *Repo) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// Timestamp is the saved_time of a record written now.
func (r *Repo) Timestamp() string { return api.Timestamp(r.now()) }

// History is how many revisions of a record a kind's bucket keeps.
const History = 10

func (r *Repo) kv(ctx context.Context, k *Kind) (jetstream.KeyValue, error) {
	return r.Store.KV(ctx, jetstream.KeyValueConfig{Bucket: k.Bucket, History: History,
		Description: "the " + k.Name + " artifacts"})
}

// ErrNotFound is the error of a missing artifact (errors.Is finds it in
// the error that names the artifact).
var ErrNotFound = errors.New("not found")

// missing is the error of a missing artifact: it names the kind and the
// name, and is ErrNotFound.
type missing struct{ kind, name string }

func (m missing) Error() string        { return fmt.Sprintf("no %s named %q", m.kind, m.name) }
func (m missing) Is(target error) bool { return target == ErrNotFound }

// Validate checks a document against its kind: the schema, then the
// kind's own checks. The error names the field.
func (r *Repo) Validate(ctx context.Context, k *Kind, d *Doc) error {
	rs, err := k.schema()
	if err != nil {
		return fmt.Errorf("the %s schema is broken: %v", k.Name, err)
	}
	v, err := d.Decode()
	if err != nil {
		return fmt.Errorf("invalid %s: %v", k.Name, err)
	}
	if err := rs.Validate(v); err != nil {
		return fmt.Errorf("invalid %s: %s", k.Name, schemaMessage(err))
	}
	if name, ok := d.String(k.Key); !ok || strings.TrimSpace(name) == "" {
		return fmt.Errorf("invalid %s: %s must be a non-empty string", k.Name, k.Key)
	}
	if k.Check != nil {
		if err := k.Check(ctx, r, d); err != nil {
			return fmt.Errorf("invalid %s: %v", k.Name, err)
		}
	}
	return nil
}

// Add stores a document (YAML or JSON) as a record of kind k. Without
// overwrite an existing record of that name is refused; with it, it is
// replaced only if no one changed it meanwhile, so of two adds racing
// for a name exactly one wins.
func (r *Repo) Add(ctx context.Context, k *Kind, data []byte, overwrite bool) (Record, error) {
	d, err := Parse(data)
	if err != nil {
		return Record{}, err
	}
	return r.AddDoc(ctx, k, d, sourceOf(data), overwrite)
}

// sourceOf says how a document's text is written: "json" or "yaml".
func sourceOf(text []byte) string {
	if t := bytes.TrimSpace(text); len(t) > 0 && t[0] == '{' {
		return "json"
	}
	return "yaml"
}

// stamp sets what the store adds to a document it stores: saved_time,
// and enabled (true) for the kinds that toggle when the document has
// none.
func (r *Repo) stamp(k *Kind, d *Doc) {
	d.SetValue("saved_time", api.Timestamp(r.now()))
	if k.Toggle && d.Raw("enabled") == nil {
		d.SetValue("enabled", true)
	}
}

// AddDoc is Add of a document parsed already (see Parse and FromJSON);
// source says how it was written ("yaml" or "json"). The document
// becomes the record's: do not use it afterwards.
func (r *Repo) AddDoc(ctx context.Context, k *Kind, d *Doc, source string, overwrite bool) (Record, error) {
	if err := r.Validate(ctx, k, d); err != nil {
		return Record{}, err
	}
	return r.AddChecked(ctx, k, d, source, overwrite)
}

// AddChecked is AddDoc of a document that Validate accepted already (a
// transaction checks all its documents before it writes the first): it
// is stored without being checked again.
func (r *Repo) AddChecked(ctx context.Context, k *Kind, d *Doc, source string, overwrite bool) (Record, error) {
	name, _ := d.String(k.Key)
	r.stamp(k, d)
	rec := Record{Doc: d, Source: source}
	var err error
	rec.Replaced, err = r.put(ctx, k, name, rec, overwrite)
	return rec, err
}

// put writes a record: created when new, replaced (at its revision) when
// overwrite; it reports whether it replaced one.
func (r *Repo) put(ctx context.Context, k *Kind, name string, rec Record, overwrite bool) (bool, error) {
	kv, err := r.kv(ctx, k)
	if err != nil {
		return false, err
	}
	value, err := rec.MarshalJSON()
	if err != nil {
		return false, err
	}
	key := store.Key(name)
	ctx, cancel := context.WithTimeout(ctx, store.Timeout)
	defer cancel()
	if _, err := kv.Create(ctx, key, value); err == nil {
		return false, nil
	} else if !errors.Is(err, jetstream.ErrKeyExists) {
		return false, fmt.Errorf("storing %s %q: %v", k.Name, name, err)
	}
	if !overwrite {
		return false, fmt.Errorf("%s %q exists already (--overwrite replaces it)", k.Name, name)
	}
	cur, err := kv.Get(ctx, key)
	if err != nil {
		return false, fmt.Errorf("storing %s %q: %v", k.Name, name, err)
	}
	if _, err := kv.Update(ctx, key, value, cur.Revision()); err != nil {
		return false, fmt.Errorf("%s %q was changed by someone else meanwhile; nothing stored", k.Name, name)
	}
	return true, nil
}

// Get returns the record name of kind k.
func (r *Repo) Get(ctx context.Context, k *Kind, name string) (Record, error) {
	e, err := r.entry(ctx, k, name)
	if err != nil {
		return Record{}, err
	}
	rec, err := decodeRecord(e.Value())
	if err != nil {
		return Record{}, fmt.Errorf("the record of %s %q is corrupt: %v", k.Name, name, err)
	}
	rec.Revision = e.Revision()
	return rec, nil
}

// entry reads the KV entry of the record name of kind k.
func (r *Repo) entry(ctx context.Context, k *Kind, name string) (jetstream.KeyValueEntry, error) {
	kv, err := r.kv(ctx, k)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, store.Timeout)
	defer cancel()
	e, err := kv.Get(ctx, store.Key(name))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, missing{k.Name, name}
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s %q: %v", k.Name, name, err)
	}
	return e, nil
}

// GetJSON returns the document of the record name of kind k as compact
// JSON, keys in order: Get without splitting the document (for a caller
// that only hands its text on).
func (r *Repo) GetJSON(ctx context.Context, k *Kind, name string) ([]byte, error) {
	e, err := r.entry(ctx, k, name)
	if err != nil {
		return nil, err
	}
	if raw, _, ok := storedDoc(e.Value()); ok {
		return raw, nil
	}
	rec, err := decodeRecord(e.Value())
	if err != nil {
		return nil, fmt.Errorf("the record of %s %q is corrupt: %v", k.Name, name, err)
	}
	return rec.Doc.JSON(), nil
}

// List returns every record of kind k, by name.
func (r *Repo) List(ctx context.Context, k *Kind) ([]Record, error) {
	kv, err := r.kv(ctx, k)
	if err != nil {
		return nil, err
	}
	entries, err := store.Entries(ctx, kv)
	if err != nil {
		return nil, err
	}
	out := make([]Record, 0, len(entries))
	for _, e := range entries {
		rec, err := decodeRecord(e.Value())
		if err != nil {
			return nil, fmt.Errorf("the record %s of the %s kind is corrupt: %v", e.Key(), k.Name, err)
		}
		rec.Revision = e.Revision()
		out = append(out, rec)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name(k) < out[j].name(k) })
	return out, nil
}

// Rows returns the list rows of kind k: the kind's columns of each record.
func (r *Repo) Rows(ctx context.Context, k *Kind) ([]map[string]any, error) {
	recs, err := r.List(ctx, k)
	if err != nil {
		return nil, err
	}
	rows := make([]map[string]any, 0, len(recs))
	for _, rec := range recs {
		rows = append(rows, r.Row(k, rec))
	}
	return rows, nil
}

// Row returns a record's list row: the kind's columns.
func (r *Repo) Row(k *Kind, rec Record) map[string]any {
	row := map[string]any{}
	var extra map[string]any
	if k.Row != nil {
		extra = k.Row(rec.Doc)
	}
	for _, c := range k.Columns {
		if v, ok := extra[c]; ok {
			row[c] = v
			continue
		}
		row[c] = rowValue(rec.Doc.Raw(c))
	}
	return row
}

// rowValue decodes a field of a list row: an integer written as one
// stays one (a port, a count), where JSON numbers decode as floats.
func rowValue(raw json.RawMessage) any {
	if n, err := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 64); err == nil {
		return n
	}
	return decodeJSONValue(raw)
}

// Delete removes the record name of kind k (and its history), and the
// records that are its parts; a part its owner still lists is refused.
func (r *Repo) Delete(ctx context.Context, k *Kind, name string) error {
	rec, err := r.Get(ctx, k, name)
	if err != nil {
		return err
	}
	if k.Owner != nil && k.Parts != nil {
		if owner := k.Owner(rec.Doc); owner != "" {
			if o, err := r.Get(ctx, k, owner); err == nil && slices.Contains(k.Parts(o.Doc), name) {
				return fmt.Errorf("%s %q is part of %q: delete that instead", k.Name, name, owner)
			}
		}
	}
	if k.UsedBy != nil {
		user, err := k.UsedBy(ctx, r, name)
		if err != nil {
			return err
		}
		if user != "" {
			return fmt.Errorf("%s %q is used by %s: change or delete that first", k.Name, name, user)
		}
	}
	kv, err := r.kv(ctx, k)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, store.Timeout)
	defer cancel()
	if err := kv.Purge(ctx, store.Key(name)); err != nil {
		return fmt.Errorf("deleting %s %q: %v", k.Name, name, err)
	}
	if k.Parts != nil {
		for _, part := range k.Parts(rec.Doc) {
			if err := kv.Purge(ctx, store.Key(part)); err != nil {
				return fmt.Errorf("deleting %s %q, part of %q: %v", k.Name, part, name, err)
			}
		}
	}
	return nil
}

// SetEnabled enables or disables the record name of a kind that toggles;
// changed is false when it was so already.
func (r *Repo) SetEnabled(ctx context.Context, k *Kind, name string, enabled bool) (changed bool, err error) {
	if !k.Toggle {
		return false, fmt.Errorf("a %s is not enabled or disabled", k.Name)
	}
	rec, err := r.Get(ctx, k, name)
	if err != nil {
		return false, err
	}
	var cur bool
	if raw := rec.Doc.Raw("enabled"); raw == nil || json.Unmarshal(raw, &cur) != nil {
		cur = true
	}
	if cur == enabled {
		return false, nil
	}
	rec.Doc.SetValue("enabled", enabled)
	rec.Doc.SetValue("saved_time", api.Timestamp(r.now()))
	if err := r.Replace(ctx, k, name, rec); err != nil {
		return false, err
	}
	return true, nil
}

// Edit replaces the record name of kind k with the document text (YAML
// or JSON), checked as an add is, if the record is still at revision rev;
// it returns the new revision. The document keeps its name; saved_time is
// the store's.
func (r *Repo) Edit(ctx context.Context, k *Kind, name string, text []byte, rev uint64) (uint64, error) {
	d, err := Parse(text)
	if err != nil {
		return 0, err
	}
	if n, _ := d.String(k.Key); n != name {
		return 0, fmt.Errorf("%s: a %s's %s does not change by editing (it is %q)", k.Key, k.Name, k.Key, name)
	}
	if err := r.Validate(ctx, k, d); err != nil {
		return 0, err
	}
	r.stamp(k, d)
	newRev, err := r.update(ctx, k, name, Record{Doc: d, Source: sourceOf(text), Revision: rev})
	if wrongRevision(err) {
		return 0, fmt.Errorf("%s %q was changed by someone else meanwhile; nothing stored", k.Name, name)
	}
	if err != nil {
		return 0, fmt.Errorf("storing %s %q: %v", k.Name, name, err)
	}
	return newRev, nil
}

// wrongRevision reports whether err says a record is no longer at the
// revision an update expected (10071; 10164 on replicated streams).
func wrongRevision(err error) bool {
	var apiErr *jetstream.APIError
	return errors.Is(err, jetstream.ErrKeyExists) ||
		errors.As(err, &apiErr) && (apiErr.ErrorCode == 10071 || apiErr.ErrorCode == 10164)
}

// Replace stores rec as the record name of kind k at its revision (a
// rewrite of a record read with Get: convert, to-app).
func (r *Repo) Replace(ctx context.Context, k *Kind, name string, rec Record) error {
	_, err := r.update(ctx, k, name, rec)
	var ue updateError
	if errors.As(err, &ue) {
		return fmt.Errorf("%s %q was changed by someone else meanwhile; try again", k.Name, name)
	}
	return err
}

// updateError is an error of the store's update itself (not of reaching
// the bucket or encoding the record).
type updateError struct{ err error }

func (e updateError) Error() string { return e.err.Error() }
func (e updateError) Unwrap() error { return e.err }

// update writes a record over the one at its revision and returns the new
// revision.
func (r *Repo) update(ctx context.Context, k *Kind, name string, rec Record) (uint64, error) {
	kv, err := r.kv(ctx, k)
	if err != nil {
		return 0, err
	}
	value, err := rec.MarshalJSON()
	if err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, store.Timeout)
	defer cancel()
	rev, err := kv.Update(ctx, store.Key(name), value, rec.Revision)
	if err != nil {
		return 0, updateError{err}
	}
	return rev, nil
}
