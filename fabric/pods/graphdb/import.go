package graphdb

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/fabricops/fabric/fabric/lib/docjson"
	"github.com/fabricops/fabric/fabric/lib/graphstore"
)

// importDocs serves POST /_api/import: JSON lines (type documents),
// one JSON array (array, list), either (auto), or a header line of
// attribute names followed by lines of values (no type), with
// onDuplicate, complete, overwrite, details, fromPrefix and toPrefix.
func (s *Server) importDocs(w http.ResponseWriter, r *request) {
	q := r.URL.Query()
	coll := q.Get("collection")
	if coll == "" {
		writeError(w, newError(400, 1204, "no collection given"))
		return
	}
	info, err := s.store.Collection(r.db, coll)
	if err != nil {
		writeError(w, docError(err))
		return
	}
	mode := graphstore.OverwriteConflict
	switch q.Get("onDuplicate") {
	case "", "error":
	case "update":
		mode = graphstore.OverwriteUpdate
	case "replace":
		mode = graphstore.OverwriteReplace
	case "ignore":
		mode = graphstore.OverwriteIgnore
	default:
		writeError(w, newError(400, 400, fmt.Sprintf("invalid onDuplicate %q", q.Get("onDuplicate"))))
		return
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		writeError(w, newError(400, 400, "cannot read the request body"))
		return
	}
	typ := q.Get("type")
	if typ == "auto" {
		typ = "documents"
		if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '[' {
			typ = "array"
		}
	}
	docs, lines, empty, bad, err := parseImport(data, typ)
	if err != nil {
		writeError(w, newError(400, 400, err.Error()))
		return
	}
	prefixed := info.Type == graphstore.EdgeCollection && (q.Get("fromPrefix") != "" || q.Get("toPrefix") != "")
	if lines != nil && (prefixed || q.Get("complete") == "true") {
		// The documents change, or go in all or nothing: decode them.
		for _, l := range lines.Lines {
			d, _ := docjson.Decode(l) // checked by parseImport
			docs = append(docs, d)
		}
		lines = nil
	}
	if prefixed {
		for _, d := range docs {
			prefix(d, "_from", q.Get("fromPrefix"))
			prefix(d, "_to", q.Get("toPrefix"))
		}
	}
	if q.Get("overwrite") == "true" {
		if _, err := s.store.Truncate(r.db, coll); err != nil {
			writeError(w, docError(err))
			return
		}
	}
	var results []graphstore.Result
	if q.Get("complete") == "true" {
		if len(bad) > 0 {
			writeError(w, newError(400, 600, "invalid JSON at position "+fmt.Sprint(bad[0])))
			return
		}
		var committed bool
		results, committed, err = s.store.InsertAll(r.db, coll, docs, mode)
		if err == nil && !committed {
			for _, res := range results {
				if res.Err != nil {
					writeError(w, docError(res.Err))
					return
				}
			}
		}
	} else if lines != nil {
		results, err = s.store.InsertLines(r.db, coll, lines.Lines, lines.Heads, mode)
	} else {
		results, err = s.store.Insert(r.db, coll, docs, mode, true, true)
	}
	if err != nil {
		writeError(w, docError(err))
		return
	}
	var created, updated, ignored int
	details := []string{}
	for _, pos := range bad {
		details = append(details, fmt.Sprintf("at position %d: invalid JSON type (expecting object, probably parse error)", pos))
	}
	for i, res := range results {
		switch {
		case res.Err != nil:
			details = append(details, fmt.Sprintf("at position %d: creating document failed with error '%s'", i, docError(res.Err).msg))
		case res.Ignored:
			ignored++
		case res.OldRev != "":
			updated++
		default:
			created++
		}
	}
	body := map[string]any{"error": false, "created": created, "errors": len(details), "empty": empty, "updated": updated, "ignored": ignored}
	if q.Get("details") == "true" {
		body["details"] = details
	}
	writeJSON(w, 201, body)
}

// importLines are an import's JSON lines with what was read of each.
type importLines struct {
	Lines [][]byte
	Heads []graphstore.Head
}

// prefix puts prefix+"/" before an edge end that is a bare key.
func prefix(d any, field, p string) {
	m, ok := d.(map[string]any)
	if !ok || p == "" {
		return
	}
	if v, ok := m[field].(string); ok && !strings.Contains(v, "/") {
		m[field] = p + "/" + v
	}
}

// parseImport reads an import body into documents; empty counts the empty
// lines, bad the positions of lines that are not JSON objects.
func parseImport(data []byte, typ string) (docs []any, lines *importLines, empty int, bad []int, err error) {
	switch typ {
	case "array", "list":
		v, err := docjson.Decode(data)
		list, ok := v.([]any)
		if err != nil || !ok {
			return nil, nil, 0, nil, fmt.Errorf("expecting a JSON array in the body")
		}
		return list, nil, 0, nil, nil
	case "documents", "":
		var header []string
		// The heads of all the lines in two allocations.
		nh := len(graphstore.HeadNames)
		var headVals []any
		var headPresent []bool
		if typ == "documents" {
			n := bytes.Count(data, []byte{'\n'}) + 1
			headVals, headPresent = make([]any, n*nh), make([]bool, n*nh)
		}
		rest := data
		for pos := 0; len(rest) > 0; pos++ {
			line := rest
			if i := bytes.IndexByte(rest, '\n'); i >= 0 {
				line, rest = rest[:i], rest[i+1:]
			} else {
				rest = nil
			}
			line = bytes.TrimSpace(line)
			if len(line) == 0 {
				empty++
				continue
			}
			if typ == "documents" {
				// Checked and read in part: most lines are stored as
				// they are (graphstore.InsertLines).
				vals, present := headVals[:nh:nh], headPresent[:nh:nh]
				if err := docjson.FieldsInto(line, graphstore.HeadNames, vals, present); err != nil {
					clear(vals)
					clear(present)
					bad = append(bad, pos)
					continue
				}
				headVals, headPresent = headVals[nh:], headPresent[nh:]
				if lines == nil {
					n := len(headVals)/nh + 1
					lines = &importLines{Lines: make([][]byte, 0, n), Heads: make([]graphstore.Head, 0, n)}
				}
				lines.Lines = append(lines.Lines, line)
				lines.Heads = append(lines.Heads, graphstore.Head{Values: vals, Present: present})
				continue
			}
			v, err := docjson.Decode(line)
			values, ok := v.([]any)
			if err != nil || !ok {
				bad = append(bad, pos)
				continue
			}
			if header == nil {
				for _, h := range values {
					name, _ := h.(string)
					header = append(header, name)
				}
				continue
			}
			doc := map[string]any{}
			for i, val := range values {
				if i < len(header) && header[i] != "" && val != nil {
					doc[header[i]] = val
				}
			}
			docs = append(docs, doc)
		}
		return docs, lines, empty, bad, nil
	}
	return nil, nil, 0, nil, fmt.Errorf("invalid type %q: documents, array, list or auto", typ)
}
