package pipeline

import (
	"slices"
	"testing"
	"time"
)

func TestVersions(t *testing.T) {
	if v := Version(time.Date(2026, 1, 2, 23, 59, 0, 0, time.FixedZone("x", -3600)), 7); v != "2026_01_03_7" {
		t.Errorf("Version in UTC = %s", v)
	}
	day, n, ok := ParseVersion("2026_11_21_12")
	if !ok || day != "2026_11_21" || n != 12 {
		t.Errorf("ParseVersion = %s %d %v", day, n, ok)
	}
	for _, bad := range []string{"", "2026_11_21", "2026_11_21_0", "2026_13_01_1", "2026_11_21_1x", "26_11_21_1", "2026_11_21_01"} {
		if _, _, ok := ParseVersion(bad); ok {
			t.Errorf("ParseVersion(%q) ok", bad)
		}
	}
	vs := []string{"2026_01_02_10", "2026_01_02_9", "x", "2025_12_31_3", "2026_01_02_1"}
	slices.SortFunc(vs, CompareVersions)
	if want := []string{"x", "2025_12_31_3", "2026_01_02_1", "2026_01_02_9", "2026_01_02_10"}; !slices.Equal(vs, want) {
		t.Errorf("sorted %v, want %v", vs, want)
	}
}
