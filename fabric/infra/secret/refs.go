package secret

import (
	"context"
	"fmt"
	"sort"
)

// RefKey is the key of a reference to a secret in inputs (a bot
// package's configuration, a pack's --inputs): {"$secret": "db-password"}
// stands for the value of the secret db-password.
const RefKey = "$secret"

// Refs returns the names of the secrets inputs refer to, sorted, without
// opening any.
func Refs(inputs any) []string {
	seen := map[string]bool{}
	walkRefs(inputs, func(name string) { seen[name] = true })
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func walkRefs(v any, found func(string)) {
	switch x := v.(type) {
	case map[string]any:
		if name, ok := ref(x); ok {
			found(name)
			return
		}
		for _, e := range x {
			walkRefs(e, found)
		}
	case []any:
		for _, e := range x {
			walkRefs(e, found)
		}
	}
}

// ref reports whether m is a reference, and to which secret.
func ref(m map[string]any) (string, bool) {
	if len(m) != 1 {
		return "", false
	}
	name, ok := m[RefKey].(string)
	return name, ok
}

// Resolve returns a copy of inputs (plain JSON values) in which each
// reference to a secret is its value, for the code that uses the inputs.
// Log, trace or show the inputs, never what Resolve returns: a reference
// names a secret without revealing it. A reference to a missing secret
// is an error naming it (and the path to it).
func (s *Store) Resolve(ctx context.Context, inputs any) (any, error) {
	return s.resolve(ctx, inputs, "inputs")
}

func (s *Store) resolve(ctx context.Context, v any, path string) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		if name, ok := ref(x); ok {
			value, err := s.Reveal(ctx, name)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			return string(value), nil
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			r, err := s.resolve(ctx, e, path+"."+k)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			r, err := s.resolve(ctx, e, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	return v, nil
}
