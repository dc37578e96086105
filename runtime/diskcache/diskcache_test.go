package diskcache

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCache: what is put is got, by the same parts only; a cache without
// a directory keeps nothing; the first entry of a build keeps only the
// newest builds' directories.
func TestCache(t *testing.T) {
	var none *Cache = New("")
	none.Put([]byte("x"), "a")
	if _, ok := none.Get("a"); ok {
		t.Fatal("a cache without a directory kept an entry")
	}

	dir := t.TempDir()
	old := time.Now().Add(-time.Hour)
	for i := range 6 {
		d := filepath.Join(dir, fmt.Sprintf("build%d", i))
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		at := old.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(d, at, at); err != nil {
			t.Fatal(err)
		}
	}
	c := New(dir)
	c.Put([]byte("program"), "program", "a.star")
	if got, ok := c.Get("program", "a.star"); !ok || string(got) != "program" {
		t.Fatalf("Get = %q, %v", got, ok)
	}
	if _, ok := c.Get("program", "b.star"); ok {
		t.Error("an entry of other parts was found")
	}
	if _, ok := c.Get("programa.star"); ok {
		t.Error("parts joined otherwise found the entry")
	}
	left, _ := os.ReadDir(dir)
	var names []string
	for _, e := range left {
		names = append(names, e.Name())
	}
	if len(left) != keptBuilds {
		t.Fatalf("kept %v, want the %d newest builds (this one and build5, build4, build3)", names, keptBuilds)
	}
	for _, want := range []string{buildKey(), "build5", "build4", "build3"} {
		if _, err := os.Stat(filepath.Join(dir, want)); err != nil {
			t.Errorf("%s was pruned; kept %v", want, names)
		}
	}
}
