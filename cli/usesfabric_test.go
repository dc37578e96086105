package cli

import (
	"testing"

	"go.starlark.net/starlark"
)

// TestUsesFabric: a script is marked when it names a fabric builtin, not
// when the name is its own (a local or a global of the script), nor when
// it does not parse.
func TestUsesFabric(t *testing.T) {
	names := starlark.StringDict{"pods": starlark.None, "dataset": starlark.None}
	uses := usesFabric(names)
	for _, tc := range []struct {
		name, src string
		want      bool
	}{
		{"a call", "def f(args):\n    return pods()\n", true},
		{"a module", "def f(args):\n    return dataset.list()\n", true},
		{"a parameter of that name", "def f(pods):\n    return len(pods)\n", false},
		{"a global of that name", "dataset = 1\ndef f(args):\n    return dataset\n", false},
		{"only universal names", "def f(args):\n    return len(sorted(args))\n", false},
		{"does not parse", "def f(:\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := uses("x.star", []byte(tc.src)); got != tc.want {
				t.Errorf("usesFabric = %t, want %t", got, tc.want)
			}
		})
	}
}
