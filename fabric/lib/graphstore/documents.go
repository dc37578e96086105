package graphstore

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/cockroachdb/pebble/v2"
	"github.com/fabricops/fabric/fabric/lib/docjson"
)

// Errors of documents, each a per-document error in a bulk write.
var (
	ErrDocumentNotFound = errors.New("document not found")
	ErrUniqueConstraint = errors.New("unique constraint violated")
	ErrIllegalKey       = errors.New("illegal document key")
	ErrDocumentType     = errors.New("invalid document type")
	ErrEdgeAttribute    = errors.New("edge attribute missing or invalid")
	ErrUserKey          = errors.New("unexpected document key")
)

// OverwriteMode says what an insert does to a document whose key exists.
type OverwriteMode string

// The overwrite modes of ArangoDB.
const (
	OverwriteConflict OverwriteMode = "conflict"
	OverwriteIgnore   OverwriteMode = "ignore"
	OverwriteReplace  OverwriteMode = "replace"
	OverwriteUpdate   OverwriteMode = "update"
)

// Doc is a document: its attributes, numbers kept as written.
type Doc = map[string]any

// Result is what a write did to one document: its meta, the previous
// revision when it replaced one, the documents when asked, or its error.
type Result struct {
	Key, ID, Rev, OldRev string
	New, Old             Doc
	// Ignored is set when an insert left an existing document alone
	// (overwrite mode ignore).
	Ignored bool
	Err     error
}

// ValidKey reports whether k is a valid document key.
func ValidKey(k string) bool {
	if k == "" || len(k) > 254 {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			continue
		}
		if !strings.ContainsRune("_-.@()+,=;$!*'%:", rune(c)) {
			return false
		}
	}
	return true
}

// validHandle reports whether h is "collection/key".
func validHandle(h any) bool {
	s, ok := h.(string)
	if !ok {
		return false
	}
	coll, key, found := strings.Cut(s, "/")
	return found && ValidCollectionName(coll) && ValidKey(key)
}

func docKey(db, coll, key string) []byte { return []byte("o/" + db + "/" + coll + "/" + key) }

// DecodeDoc reads a JSON object as a document, numbers as written.
func DecodeDoc(data []byte) (Doc, error) {
	d, err := docjson.DecodeObject(data)
	if err != nil {
		return nil, ErrDocumentType
	}
	return d, nil
}

// Insert writes documents into a collection in one synced batch; an
// existing key is handled by mode. Each document gets its result; the
// error is the whole request's (a missing collection, the disk).
func (s *Store) Insert(db, coll string, docs []any, mode OverwriteMode, keepNull, mergeObjects bool) ([]Result, error) {
	return s.insert(nil, db, coll, docs, nil, mode, keepNull, mergeObjects, false, Precondition{})
}

// InsertIf is Insert with pre checked, as ModifyIf checks it, of each
// existing document the insert would replace or update (overwrite modes
// replace and update); a document whose key is new is written as Insert
// writes it, with no check and no cost.
func (s *Store) InsertIf(db, coll string, docs []any, mode OverwriteMode, keepNull, mergeObjects bool, pre Precondition) ([]Result, error) {
	return s.insert(nil, db, coll, docs, nil, mode, keepNull, mergeObjects, false, pre)
}

// HeadNames are the members a bulk insert reads of a document it has as
// JSON text, in the order of Head's fields (see docjson.Fields).
var HeadNames = []string{"_key", "_from", "_to", "_id", "_rev"}

// Head is what a bulk insert reads of a document it has as JSON text: the
// values of HeadNames and whether each is there.
type Head struct {
	Values  []any
	Present []bool
}

// InsertLines is Insert of documents given as JSON object texts and their
// heads (values of HeadNames): a document whose key is new is stored as
// its text with _id and _rev put in front, neither decoded nor encoded;
// the others are decoded and inserted as Insert does (keepNull and
// mergeObjects on).
func (s *Store) InsertLines(db, coll string, lines [][]byte, heads []Head, mode OverwriteMode) ([]Result, error) {
	return s.insert(nil, db, coll, make([]any, len(lines)), &lineDocs{lines, heads}, mode, true, true, false, Precondition{})
}

// lineDocs are the texts and heads of InsertLines' documents.
type lineDocs struct {
	lines [][]byte
	heads []Head
}

// InsertAll is Insert that stores nothing when any document fails (an
// import with complete=true); committed reports whether it stored.
func (s *Store) InsertAll(db, coll string, docs []any, mode OverwriteMode) (results []Result, committed bool, err error) {
	results, err = s.insert(nil, db, coll, docs, nil, mode, true, true, true, Precondition{})
	if err != nil {
		return nil, false, err
	}
	for _, r := range results {
		if r.Err != nil {
			return results, false, nil
		}
	}
	return results, true, nil
}

func (s *Store) insert(t *Txn, db, coll string, docs []any, lines *lineDocs, mode OverwriteMode, keepNull, mergeObjects, allOrNothing bool, cond Precondition) ([]Result, error) {
	keys := make([]string, 0, len(docs))
	for i, x := range docs {
		if lines != nil {
			if k, ok := lines.heads[i].Values[0].(string); ok {
				keys = append(keys, k)
			}
		} else if d, ok := x.(map[string]any); ok {
			if k, ok := d["_key"].(string); ok {
				keys = append(keys, k)
			}
		}
	}
	// Each document as stored when its key is new: built and encoded
	// before the batch takes the lock, so that concurrent batches do this
	// work in parallel.
	// Their writes are sorted then too; those of the documents whose key
	// turns out to exist are left out at the commit.
	fresh := make([]*prepared, len(docs))
	accepted := make([]bool, len(docs))
	var pre writeBuffer
	prep := func(info *CollectionInfo) {
		var arena, text keyArena // keys; the documents' texts
		var lineDocs []prepared
		perDoc := 2 // the document and its order record
		if info.Type == EdgeCollection {
			perDoc = 4
		}
		pre.ops = make([]kvOp, 0, perDoc*len(docs))
		if lines != nil {
			lineDocs = make([]prepared, len(docs))
			n := 0
			for _, l := range lines.lines {
				n += len(l)
			}
			text.grow(n + len(docs)*(len(coll)+48))
		}
		for i, x := range docs {
			var f *prepared
			if lines != nil {
				if f = &lineDocs[i]; !s.prepareLine(info, lines.lines[i], lines.heads[i], f, &text) {
					f = nil
				}
			} else {
				f = s.prepare(info, x)
			}
			if f == nil {
				continue
			}
			if arena.buf == nil {
				arena.grow(len(docs) * (perDoc*(len(db)+len(coll)+len(f.key)+16) + 2*(len(f.from)+len(f.to))))
			}
			fresh[i] = f
			n := len(pre.ops)
			_ = pre.Set(arena.docKey(db, coll, f.key), f.data, nil)
			_ = pre.Set(arena.orderKey(db, coll, f.rev, f.key), nil, nil)
			if info.Type == EdgeCollection {
				_ = pre.Set(arena.edgeIndexKey('f', db, coll, f.from, f.key), arena.text(f.to), nil)
				_ = pre.Set(arena.edgeIndexKey('t', db, coll, f.to, f.key), arena.text(f.from), nil)
			}
			for j := n; j < len(pre.ops); j++ {
				pre.ops[j].item = int32(i)
			}
		}
		pre.sort()
	}
	return s.writeDocs(t, db, coll, len(docs), keys, allOrNothing, prep, func(w *writer, info *CollectionInfo, i int) Result {
		if w.pre == nil {
			w.pre, w.keep = pre.ops, func(op kvOp) bool { return accepted[op.item] }
		}
		if f := fresh[i]; f != nil && len(w.idx) == 0 { // documents in a secondary index are written one by one
			if _, err := w.old(f.key); errors.Is(err, ErrDocumentNotFound) {
				// Written with pre.
				if lines != nil {
					w.raw[f.key] = f.data
				} else {
					w.now[f.key], w.data[f.key] = f.doc, f.data
				}
				accepted[i] = true
				w.delta++
				res := Result{Key: f.key, ID: f.id, Rev: f.rev}
				if lines == nil {
					res.New = f.doc
				}
				return res
			}
		}
		if lines != nil {
			d, err := docjson.Decode(lines.lines[i])
			if err != nil {
				return Result{Err: ErrDocumentType}
			}
			docs[i] = d
		}
		return s.insertOne(w, info, docs[i], mode, keepNull, mergeObjects, &cond)
	})
}

// prepared is a document ready to store under a key that is new: its
// system attributes, and its text as stored.
type prepared struct {
	key, id, rev string
	from, to     string // an edge's ends
	doc          Doc    // the document, when it was given decoded (nil for a line)
	data         []byte
}

// prepareLine is prepare for a document given as JSON text and its head,
// into f: the stored text, made in text, is the document's with _id and
// _rev put in front (false when it does not qualify, or names _id or
// _rev itself).
func (s *Store) prepareLine(info *CollectionInfo, line []byte, h Head, f *prepared, text *keyArena) bool {
	k, ok := h.Values[0].(string)
	// A collection with computed values takes its lines decoded (the
	// values are computed on the document).
	if !ok || !info.KeyOptions.AllowUserKeys || !ValidKey(k) || h.Present[3] || h.Present[4] || len(line) < 2 || line[0] != '{' ||
		len(info.ComputedValues) > 0 {
		return false
	}
	f.key = k
	if info.Type == EdgeCollection {
		if !validHandle(h.Values[1]) || !validHandle(h.Values[2]) {
			return false
		}
		f.from, f.to = h.Values[1].(string), h.Values[2].(string)
	}
	f.id, f.rev = info.Name+"/"+k, s.newRev()
	text.grow(len(line) + len(f.id) + len(f.rev) + 24)
	start := len(text.buf)
	b, ok := compactLine(text.buf, line, k, f.rev)
	if !ok { // _key is not first: the whole document, _id and _rev in front
		b = append(b, `{"_id":`...)
		b = docjson.AppendString(b, f.id)
		b = append(b, `,"_rev":`...)
		b = docjson.AppendString(b, f.rev)
		b = append(append(b, ','), line[1:]...)
	}
	text.buf = b
	f.data = b[start:len(b):len(b)]
	return true
}

// prepare builds a document with a user key as stored when the key is
// new (nil when it does not qualify: no key, a bad one, a bad edge).
func (s *Store) prepare(info *CollectionInfo, x any) *prepared {
	d, ok := x.(map[string]any)
	if !ok || !info.KeyOptions.AllowUserKeys {
		return nil
	}
	k, ok := d["_key"].(string)
	if !ok || !ValidKey(k) {
		return nil
	}
	if badEdge(info, d) {
		return nil
	}
	doc := userAttrs(d)
	f := &prepared{key: k, id: info.Name + "/" + k, rev: s.newRev(), doc: doc}
	doc["_key"], doc["_id"], doc["_rev"] = k, f.id, f.rev
	if s.compute(info, ComputeInsert, doc) != nil {
		return nil // the write under the lock fails with the error
	}
	if info.Type == EdgeCollection {
		f.from, f.to = doc["_from"].(string), doc["_to"].(string)
	}
	var err error
	if f.data, err = compactData(doc); err != nil {
		return nil
	}
	return f
}

// insertOne writes one document into the batch; pre is checked of the
// document it would replace or update.
func (s *Store) insertOne(w *writer, info *CollectionInfo, x any, mode OverwriteMode, keepNull, mergeObjects bool, pre *Precondition) Result {
	d, ok := x.(map[string]any)
	if !ok {
		return Result{Err: ErrDocumentType}
	}
	key, hasKey := d["_key"]
	var k string
	if hasKey {
		if !info.KeyOptions.AllowUserKeys {
			return Result{Err: ErrUserKey}
		}
		ks, ok := key.(string)
		if !ok || !ValidKey(ks) {
			return Result{Err: ErrIllegalKey}
		}
		k = ks
	} else {
		k = s.newID()
	}
	id := info.Name + "/" + k
	old, err := w.old(k)
	if err != nil && !errors.Is(err, ErrDocumentNotFound) {
		return Result{Err: err}
	}
	doc := userAttrs(d)
	var res Result
	if old != nil {
		switch mode {
		case OverwriteIgnore:
			return Result{Key: k, ID: id, Rev: old["_rev"].(string), Ignored: true}
		case OverwriteReplace, OverwriteUpdate:
			if r, ok := pre.conflict(info.Name, k, old, d); !ok {
				return r
			}
			if r, skip := pre.stale(info.Name, k, old, d); skip {
				return r
			}
			if mode == OverwriteUpdate {
				doc = merge(old, doc, keepNull, mergeObjects)
			}
		default:
			return Result{Err: ErrUniqueConstraint, Key: k}
		}
		res.OldRev, res.Old = old["_rev"].(string), old
	}
	if badEdge(info, doc) {
		return Result{Err: ErrEdgeAttribute}
	}
	doc["_key"], doc["_id"], doc["_rev"] = k, id, s.newRev()
	op := ComputeInsert
	if old != nil {
		op = ComputeReplace
		if mode == OverwriteUpdate {
			op = ComputeUpdate
		}
	}
	if err := s.compute(info, op, doc); err != nil {
		return Result{Err: err, Key: k}
	}
	data, err := compactData(doc)
	if err != nil {
		return Result{Err: ErrDocumentType}
	}
	if err := w.write(info, k, old, doc, data); err != nil {
		return Result{Err: err, Key: k}
	}
	if old == nil {
		w.delta++
	}
	res.Key, res.ID, res.Rev, res.New = k, id, doc["_rev"].(string), doc
	return res
}

// newRev returns a new revision ("_" and a base-36 number).
func (s *Store) newRev() string { return "_" + strconv.FormatUint(s.nextID.Add(1), 36) }

// userAttrs copies a document's attributes but _id and _rev, which the
// store sets.
func userAttrs(d Doc) Doc {
	doc := make(Doc, len(d)+2)
	for name, v := range d {
		if name != "_id" && name != "_rev" {
			doc[name] = v
		}
	}
	return doc
}

// badEdge reports a document of an edge collection without a valid _from
// and _to.
func badEdge(info *CollectionInfo, doc Doc) bool {
	return info.Type == EdgeCollection && !(validHandle(doc["_from"]) && validHandle(doc["_to"]))
}

// merge applies a patch to a document as ArangoDB's update does.
func merge(old, patch Doc, keepNull, mergeObjects bool) Doc {
	out := Doc{}
	for k, v := range old {
		out[k] = v
	}
	for k, v := range patch {
		if v == nil && !keepNull {
			delete(out, k)
			continue
		}
		if mergeObjects {
			if po, ok := v.(map[string]any); ok {
				if oo, ok := out[k].(map[string]any); ok {
					out[k] = merge(oo, po, keepNull, true)
					continue
				}
			}
		}
		out[k] = v
	}
	return out
}

// getDoc reads a stored document through r (the store or a batch).
func getDoc(r pebble.Reader, db, coll, key string) (Doc, error) {
	v, closer, err := r.Get(docKey(db, coll, key))
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, ErrDocumentNotFound
	}
	if err != nil {
		return nil, err
	}
	defer closer.Close()
	return decodeStored(coll, key, v)
}

// Document returns the stored document key of a collection, as JSON.
func (s *Store) Document(db, coll, key string) ([]byte, error) {
	if _, err := s.Collection(db, coll); err != nil {
		return nil, err
	}
	return documentJSON(s.db, db, coll, key)
}

// documentJSON reads a stored document's JSON through r (the store, or a
// transaction's batch).
func documentJSON(r pebble.Reader, db, coll, key string) ([]byte, error) {
	if !ValidKey(key) {
		return nil, ErrDocumentNotFound
	}
	v, closer, err := r.Get(docKey(db, coll, key))
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, ErrDocumentNotFound
	}
	if err != nil {
		return nil, err
	}
	defer closer.Close()
	return storedJSON(coll, key, v), nil
}

// itemKey returns the key of a bulk item: a key string or an object with
// _key.
func itemKey(x any) (string, Doc, bool) {
	switch v := x.(type) {
	case string:
		return v, nil, ValidKey(v)
	case map[string]any:
		k, ok := v["_key"].(string)
		return k, v, ok && ValidKey(k)
	}
	return "", nil, false
}

// itemKeys returns the valid keys items name.
func itemKeys(items []any) []string {
	keys := make([]string, 0, len(items))
	for _, x := range items {
		if k, _, ok := itemKey(x); ok {
			keys = append(keys, k)
		}
	}
	return keys
}

// ErrIdentifier is the error of a bulk item that names no document.
var ErrIdentifier = errors.New("illegal document identifier")

// Modify replaces (replace) or patches documents, each an object with its
// _key, in one synced batch; edges keep needing _from and _to.
func (s *Store) Modify(db, coll string, items []any, replace, keepNull, mergeObjects bool) ([]Result, error) {
	return s.ModifyIf(db, coll, items, replace, keepNull, mergeObjects, Precondition{})
}

// ModifyIf is Modify with pre checked of each document, under the lock
// that orders writes: a document that fails it is left as it is (its
// result is ErrConflict's, or the stored document for a stale external
// version); the others are written.
func (s *Store) ModifyIf(db, coll string, items []any, replace, keepNull, mergeObjects bool, pre Precondition) ([]Result, error) {
	return s.modify(nil, db, coll, items, replace, keepNull, mergeObjects, pre)
}

// modify is ModifyIf in a transaction (nil: none).
func (s *Store) modify(t *Txn, db, coll string, items []any, replace, keepNull, mergeObjects bool, pre Precondition) ([]Result, error) {
	return s.writeDocs(t, db, coll, len(items), itemKeys(items), false, nil, func(w *writer, info *CollectionInfo, i int) Result {
		x := items[i]
		k, d, ok := itemKey(x)
		if d == nil {
			if _, isObj := x.(map[string]any); !isObj {
				return Result{Err: ErrDocumentType}
			}
		}
		if !ok {
			return Result{Err: ErrIllegalKey}
		}
		old, err := w.old(k)
		if err != nil {
			return Result{Err: err, Key: k}
		}
		if res, ok := pre.conflict(coll, k, old, d); !ok {
			return res
		}
		if res, skip := pre.stale(coll, k, old, d); skip {
			return res
		}
		doc := userAttrs(d)
		if !replace {
			doc = merge(old, doc, keepNull, mergeObjects)
		}
		if badEdge(info, doc) {
			return Result{Err: ErrEdgeAttribute}
		}
		doc["_key"], doc["_id"], doc["_rev"] = k, coll+"/"+k, s.newRev()
		op := ComputeReplace
		if !replace {
			op = ComputeUpdate
		}
		if err := s.compute(info, op, doc); err != nil {
			return Result{Err: err, Key: k}
		}
		data, err := compactData(doc)
		if err != nil {
			return Result{Err: ErrDocumentType}
		}
		if err := w.write(info, k, old, doc, data); err != nil {
			return Result{Err: err, Key: k}
		}
		return Result{Key: k, ID: coll + "/" + k, Rev: doc["_rev"].(string), OldRev: old["_rev"].(string), New: doc, Old: old}
	})
}

// Remove deletes documents by key (strings or objects with _key) in one
// synced batch.
func (s *Store) Remove(db, coll string, items []any) ([]Result, error) {
	return s.RemoveIf(db, coll, items, Precondition{})
}

// RemoveIf is Remove with pre's revision checked of each document (an
// item's _rev is that of an object item), under the lock that orders
// writes: a document that fails it is left as it is, its result
// ErrConflict's; the others are deleted.
func (s *Store) RemoveIf(db, coll string, items []any, pre Precondition) ([]Result, error) {
	return s.remove(nil, db, coll, items, pre)
}

// remove is RemoveIf in a transaction (nil: none).
func (s *Store) remove(t *Txn, db, coll string, items []any, pre Precondition) ([]Result, error) {
	return s.writeDocs(t, db, coll, len(items), itemKeys(items), false, nil, func(w *writer, info *CollectionInfo, i int) Result {
		k, d, ok := itemKey(items[i])
		if !ok {
			return Result{Err: ErrIdentifier}
		}
		old, err := w.old(k)
		if err != nil {
			return Result{Err: err, Key: k}
		}
		if res, ok := pre.conflict(coll, k, old, d); !ok {
			return res
		}
		w.remove(info, k, old)
		w.delta--
		return Result{Key: k, ID: coll + "/" + k, Rev: old["_rev"].(string), Old: old}
	})
}

// Lookup reads documents by key (strings or objects with _key): each
// its stored JSON, or its error.
func (s *Store) Lookup(db, coll string, items []any) ([]json.RawMessage, []error, error) {
	return lookup(s, db, coll, items, s.Document)
}

// lookup is Lookup with each document read by read.
func lookup(s *Store, db, coll string, items []any, read func(db, coll, key string) ([]byte, error)) ([]json.RawMessage, []error, error) {
	if _, err := s.Collection(db, coll); err != nil {
		return nil, nil, err
	}
	docs := make([]json.RawMessage, len(items))
	errs := make([]error, len(items))
	for i, x := range items {
		k, _, ok := itemKey(x)
		if !ok {
			errs[i] = ErrIdentifier
			continue
		}
		docs[i], errs[i] = read(db, coll, k)
	}
	return docs, errs, nil
}

// Keys returns the keys of a collection's documents, sorted.
func (s *Store) Keys(db, coll string) ([]string, error) {
	if _, err := s.Collection(db, coll); err != nil {
		return nil, err
	}
	var keys []string
	err := s.each(documentPrefix(db, coll), func(k, _ []byte) bool {
		keys = append(keys, string(k))
		return true
	})
	return keys, err
}

// each calls fn with the key (less the prefix) and value of each record
// under prefix, in key order, until fn returns false.
func (s *Store) each(prefix []byte, fn func(key, value []byte) bool) error {
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: prefix, UpperBound: prefixEnd(prefix)})
	if err != nil {
		return err
	}
	defer it.Close()
	for it.First(); it.Valid(); it.Next() {
		if !fn(it.Key()[len(prefix):], it.Value()) {
			break
		}
	}
	return it.Error()
}
