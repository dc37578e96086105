package graphstore

import (
	"bytes"

	"github.com/fabricops/fabric/fabric/lib/docjson"
)

// A document is stored without its _key and _id, which its record's key
// holds (o/DB/COLL/KEY): a byte compactDoc, then the JSON object of the
// other attributes, _rev first when the document came as a line. Reads
// put them back in front (_key, _id, then the rest, as ArangoDB orders
// them). Records written before this form are whole JSON objects ('{'),
// read as they are.

// compactDoc starts a document stored without _key and _id.
const compactDoc = 0x00

// compactData encodes a document for storage: without _key and _id
// (doc is left as it was).
func compactData(doc Doc) ([]byte, error) {
	key, hasKey := doc["_key"]
	id, hasID := doc["_id"]
	delete(doc, "_key")
	delete(doc, "_id")
	data, err := docjson.Append([]byte{compactDoc}, map[string]any(doc))
	if hasKey {
		doc["_key"] = key
	}
	if hasID {
		doc["_id"] = id
	}
	return data, err
}

// compactLine appends to b the stored form of a document given as a JSON
// line whose first member is its _key (key, written without escapes, as
// every valid key is) and that has no _id or _rev: _rev in its place.
// ok is false when the line does not start so.
func compactLine(b, line []byte, key, rev string) (out []byte, ok bool) {
	const head = `{"_key":"`
	n := len(head) + len(key)
	if len(line) < n+2 || !bytes.HasPrefix(line, []byte(head)) || string(line[len(head):n]) != key || line[n] != '"' {
		return b, false
	}
	rest := bytes.TrimLeft(line[n+1:], " \t\r\n")
	if len(rest) == 0 || rest[0] != ',' && rest[0] != '}' {
		return b, false
	}
	b = append(b, compactDoc)
	b = append(b, `{"_rev":`...)
	b = docjson.AppendString(b, rev)
	return append(b, rest...), true
}

// decodeStored decodes a stored document of collection coll under key.
func decodeStored(coll, key string, v []byte) (Doc, error) {
	if len(v) == 0 || v[0] != compactDoc {
		return DecodeDoc(v)
	}
	d, err := DecodeDoc(v[1:])
	if err != nil {
		return nil, err
	}
	d["_key"], d["_id"] = key, coll+"/"+key
	return d, nil
}

// storedJSON returns the JSON text of a stored document of collection
// coll under key (a new slice).
func storedJSON(coll, key string, v []byte) []byte {
	if len(v) == 0 || v[0] != compactDoc {
		return bytes.Clone(v)
	}
	body := v[1:] // {...}
	b := make([]byte, 0, len(body)+2*len(key)+len(coll)+24)
	b = append(b, `{"_key":`...)
	b = docjson.AppendString(b, key)
	b = append(b, `,"_id":`...)
	b = docjson.AppendString(b, coll+"/"+key)
	inner := bytes.TrimSpace(body[1 : len(body)-1])
	if len(inner) > 0 {
		b = append(append(b, ','), inner...)
	}
	return append(b, '}')
}
