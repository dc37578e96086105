package runtime

import "testing"

// TestUses: a program uses a name when it refers to it, not when a
// field, a keyword argument or a string holds the same word.
func TestUses(t *testing.T) {
	names := map[string]bool{"output": true}
	rt := New(Options{})
	for _, tc := range []struct {
		src  string
		want bool
	}{
		{"output('x')", true},
		{"f = output", true},
		{"def g(args):\n    return args.output\n", false},
		{"def g(f):\n    return f(output = 1)\n", false},
		{"def g(f):\n    return f(output = output)\n", true},
		{"x = 'output'", false},
		{"def g(args):\n    return args.output(output)\n", true},
	} {
		if got := rt.Uses("t.star", []byte(tc.src), names); got != tc.want {
			t.Errorf("Uses(%q) = %v, want %v", tc.src, got, tc.want)
		}
	}
}
