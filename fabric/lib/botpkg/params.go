package botpkg

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"go.starlark.net/starlark"
)

// CheckParams checks a step's parameters against a bot's
// model_parameters (each known, of its type, the mandatory ones given,
// defaults filled) and returns them as a dict of typed values: text a
// string, number an int or a float, boolean a bool.
func CheckParams(b *Bot, given map[string]string) (*starlark.Dict, error) {
	out := starlark.NewDict(len(b.ModelParameters))
	known := map[string]bool{}
	for _, p := range b.ModelParameters {
		known[p.Name] = true
		raw, ok := given[p.Name]
		if !ok {
			if p.Mandatory {
				return nil, fmt.Errorf("the parameter %s is mandatory", p.Name)
			}
			if p.Default == "" {
				continue
			}
			raw = p.Default
		}
		v, err := paramValue(p, raw)
		if err != nil {
			return nil, fmt.Errorf("the parameter %s %v", p.Name, err)
		}
		_ = out.SetKey(starlark.String(p.Name), v)
	}
	var unknown []string
	for k := range given {
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("the bot has no parameter %s", strings.Join(unknown, ", "))
	}
	return out, nil
}

// paramValue is raw as a value of p's type.
func paramValue(p Parameter, raw string) (starlark.Value, error) {
	switch p.Type {
	case "number":
		if i, err := strconv.ParseInt(raw, 10, 64); err == nil {
			return starlark.MakeInt64(i), nil
		}
		f, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			return nil, fmt.Errorf("is %q, not a number", raw)
		}
		return starlark.Float(f), nil
	case "boolean":
		switch strings.ToLower(raw) {
		case "true", "yes", "1":
			return starlark.True, nil
		case "false", "no", "0":
			return starlark.False, nil
		}
		return nil, fmt.Errorf("is %q, not true or false", raw)
	}
	return starlark.String(raw), nil
}
