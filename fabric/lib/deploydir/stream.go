package deploydir

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
)

// StreamPurgeKeys are the alert payload stream's attributes post-step 3
// removes, so that the collector stops purging it.
var StreamPurgeKeys = []string{"retention_days", "retention_purge_extra_filter"}

// RemoveKeys takes the named members out of a JSON object (the top
// level of a stream definition), with their commas; every other byte
// stays as it is.
func RemoveKeys(data []byte, keys ...string) ([]byte, bool, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, false, fmt.Errorf("not a JSON object")
	}
	type member struct {
		key        string
		start, end int // from the key's quote to the value's end
	}
	var members []member
	for dec.More() {
		before := int(dec.InputOffset())
		kt, err := dec.Token()
		if err != nil {
			return nil, false, err
		}
		key, _ := kt.(string)
		start := before + bytes.IndexByte(data[before:], '"')
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false, err
		}
		members = append(members, member{key, start, int(dec.InputOffset())})
	}
	if _, err := dec.Token(); err != nil {
		return nil, false, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false, fmt.Errorf("more than one JSON value")
	}
	var kept []int
	for i, m := range members {
		if !slices.Contains(keys, m.key) {
			kept = append(kept, i)
		}
	}
	if len(kept) == len(members) {
		return data, false, nil
	}
	// The text before the first member and after the last stays; each
	// kept member but the first comes with the separator that was before
	// it.
	out := append([]byte{}, data[:members[0].start]...)
	for n, i := range kept {
		if n > 0 {
			out = append(out, data[members[i-1].end:members[i].start]...)
		}
		out = append(out, data[members[i].start:members[i].end]...)
	}
	out = append(out, data[members[len(members)-1].end:]...)
	return out, true, nil
}
