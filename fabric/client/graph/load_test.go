package graph

import "testing"

// The expected keys were computed apart from this code (Python: the first
// 16 bytes of hashlib.sha256, as a big-endian integer, in base 62).
func TestEdgeKey(t *testing.T) {
	tests := []struct {
		values []string
		sorted bool
		want   string
	}{
		{[]string{"n1", "n2"}, false, "5k9G83c0nFAqloa0Kz05up"},
		{[]string{"n2", "n1"}, true, "5k9G83c0nFAqloa0Kz05up"},
		{[]string{"a"}, false, "6AHgdMs1wE5NmTkRxw6Obd"},
		{[]string{""}, false, "6ve2WrOl3mnciB6WIL2fIa"},
	}
	for _, tc := range tests {
		if got := EdgeKey(tc.values, tc.sorted); got != tc.want {
			t.Errorf("EdgeKey(%q, %v) = %q, want %q", tc.values, tc.sorted, got, tc.want)
		}
	}
	if EdgeKey([]string{"n2", "n1"}, false) == EdgeKey([]string{"n1", "n2"}, false) {
		t.Error("unsorted keys of reversed values are equal")
	}
}
