package command

import (
	"strings"
	"testing"
	"testing/fstest"
)

// TestIndexBundleMarks: the scripts the test given to IndexBundle takes
// are marked Fabric in the index it makes, and none without a test.
func TestIndexBundleMarks(t *testing.T) {
	bundle := fstest.MapFS{
		"remote.star": {Data: []byte("command(\"pods list\", fn = f)\ncommand(name = \"pods show\", fn = g)\n")},
		"local.star":  {Data: []byte("command('checksum', fn = h)\n")},
	}
	remote := func(path string, src []byte) bool { return strings.HasPrefix(path, "remote") }
	for _, tc := range []struct {
		name string
		test func(string, []byte) bool
		want map[string]bool
	}{
		{"marked", remote, map[string]bool{"pods-list": true, "pods-show": true, "checksum": false}},
		{"no test", nil, map[string]bool{"pods-list": false, "pods-show": false, "checksum": false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := IndexBundle(bundle, tc.test)
			if err != nil {
				t.Fatal(err)
			}
			ix, err := NewIndexOf(data, "")
			if err != nil {
				t.Fatal(err)
			}
			for key, want := range tc.want {
				src, ok := ix.Find(key)
				if !ok {
					t.Fatalf("%s is not indexed", key)
				}
				if src.Fabric != want || !src.Bundled || !strings.HasSuffix(src.Path, ".star") {
					t.Errorf("%s: %+v, want Fabric %t", key, src, want)
				}
			}
		})
	}
}
