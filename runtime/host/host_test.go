package host

import (
	"os"
	"path/filepath"
	"testing"
)

// TestColumnsOf: the width tables are fitted to is $COLUMNS when stdout is
// not a terminal and it says a positive number, else 0 (left whole).
func TestColumnsOf(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, tc := range []struct {
		env  string
		want int
	}{{"", 0}, {"80", 80}, {"wide", 0}, {"-3", 0}, {"0", 0}} {
		t.Setenv("COLUMNS", tc.env)
		if got := ColumnsOf(f); got != tc.want {
			t.Errorf("COLUMNS=%q: %d, want %d", tc.env, got, tc.want)
		}
		if got := (&IO{}).TableColumns(); got != 0 {
			t.Errorf("an IO without Columns fits tables to %d, want 0 (whole)", got)
		}
	}
}
