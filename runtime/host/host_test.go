package host

import (
	"os"
	"path/filepath"
	"testing"
)

// TestColumnsOf: the width tables are fitted to is $COLUMNS when stdout is
// not a terminal and it says a positive number, else 120.
func TestColumnsOf(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, tc := range []struct {
		env  string
		want int
	}{{"", DefaultColumns}, {"80", 80}, {"wide", DefaultColumns}, {"-3", DefaultColumns}, {"0", DefaultColumns}} {
		t.Setenv("COLUMNS", tc.env)
		if got := ColumnsOf(f); got != tc.want {
			t.Errorf("COLUMNS=%q: %d, want %d", tc.env, got, tc.want)
		}
		if got := (&IO{}).TableColumns(); got != DefaultColumns {
			t.Errorf("an IO without Columns fits tables to %d, want %d", got, DefaultColumns)
		}
	}
}
