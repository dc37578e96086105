package pack

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/fabricops/fabric/fabric/lib/yamldoc"
	"gopkg.in/yaml.v3"
)

// StampedKeys are the top-level keys the fabric sets on what it stores
// (when it was saved, whether it is enabled, ...), left out of
// checksums.
var StampedKeys = []string{"saved_time", "enabled", "version_time"}

// artifactLimits bound the YAML of an artifact's file.
var artifactLimits = yamldoc.Limits{Size: int(DefaultLimits.MaxFile)}

// Checksum is the checksum of an artifact's content, the same for a
// rendered file and for what the fabric stores of it: "sha256:" + hex.
//
// A pipeline (TypePipeline) is text: "\r\n" is "\n", the trailing spaces
// and tabs of each line and trailing blank lines are ignored. A dataset
// (TypeDataset) is hashed as bytes. A bot package (TypeBotPackage, a
// folder's .tar.gz as Render makes it) is its files' FolderChecksum.
// Any other type is a YAML or JSON document (JSON is YAML): it is decoded (bounded: an alias bomb is an
// error), the keys in StampedKeys are dropped at the top level, and its
// canonical JSON (map keys sorted, numbers as encoding/json writes the
// decoded value, no HTML escaping) is hashed; an empty text is null, a
// text of several documents is the list of them.
func Checksum(typ string, data []byte) (string, error) {
	var canon []byte
	switch typ {
	case TypePipeline:
		canon = normalizeText(data)
	case TypeDataset:
		canon = data
	case TypeBotPackage:
		files, err := FolderFiles(data)
		if err != nil {
			return "", err
		}
		return FolderChecksum(files), nil
	default:
		var err error
		if canon, err = canonicalJSON(data); err != nil {
			return "", err
		}
	}
	sum := sha256.Sum256(canon)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// normalizeText is a pipeline's text as hashed: lines ended by "\n",
// without trailing spaces or tabs, no trailing blank lines.
func normalizeText(data []byte) []byte {
	lines := bytes.Split(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")), []byte("\n"))
	for i, l := range lines {
		lines[i] = bytes.TrimRight(l, " \t")
	}
	for len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	return bytes.Join(lines, []byte("\n"))
}

// canonicalJSON decodes a YAML or JSON text and writes it as canonical
// JSON, the stamped keys of its top mapping left out.
func canonicalJSON(data []byte) ([]byte, error) {
	docs, err := yamldoc.Parse(data, -1, artifactLimits)
	if err != nil {
		return nil, err
	}
	values := make([]any, 0, len(docs))
	for _, d := range docs {
		var v any
		if err := decodeNode(d, &v); err != nil {
			return nil, err
		}
		v = jsonable(v)
		if m, ok := v.(map[string]any); ok {
			for _, k := range StampedKeys {
				delete(m, k)
			}
		}
		values = append(values, v)
	}
	var v any
	switch len(values) {
	case 0:
	case 1:
		v = values[0]
	default:
		v = values
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// decodeNode decodes a checked YAML node into v; what yaml.v3 panics
// with is an error.
func decodeNode(n *yaml.Node, v *any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: cannot decode the document: %v", r)
		}
	}()
	return n.Decode(v)
}

// jsonable turns a decoded YAML value into one encoding/json writes:
// mappings with keys of any type become map[string]any (keys written
// as text), floats that JSON has no number for become their YAML text.
func jsonable(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = jsonable(e)
		}
		return x
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[keyText(k)] = jsonable(e)
		}
		return m
	case []any:
		out := slices.Clone(x)
		for i, e := range out {
			out[i] = jsonable(e)
		}
		return out
	case float64:
		switch {
		case math.IsNaN(x):
			return ".nan"
		case math.IsInf(x, 1):
			return ".inf"
		case math.IsInf(x, -1):
			return "-.inf"
		}
	case []byte:
		return string(x)
	}
	return v
}

// keyText writes a mapping key of any type as text.
func keyText(k any) string {
	switch x := k.(type) {
	case string:
		return x
	case nil:
		return "null"
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case map[string]any, map[any]any, []any:
		b, err := json.Marshal(jsonable(x))
		if err == nil {
			return string(b)
		}
	}
	return fmt.Sprint(k)
}
