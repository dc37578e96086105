package artifact

import (
	"encoding/json"

	"github.com/fabricops/fabric/fabric/lib/docjson"
)

// decodeJSON reads JSON into plain Go values as encoding/json does into
// an any (objects map[string]any, arrays []any, numbers float64), in one
// pass and without reflection (docjson): validation decodes every
// document it checks. Where docjson refuses the text, encoding/json's
// error is returned, so errors read as they always did.
func decodeJSON(data []byte) (any, error) {
	v, err := docjson.DecodeFloats(data)
	if err != nil {
		var slow any
		if err := json.Unmarshal(data, &slow); err != nil {
			return nil, err
		}
		return slow, nil
	}
	return v, nil
}
