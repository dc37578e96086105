package stdlib

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFile(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"data.txt":         "hello\n",
		"sub/a.go":         "package a",
		"sub/deep/b.go":    "package b",
		"sub/.hidden/c.go": "package c",
		".dot.go":          "",
		"x.go":             "",
	})
	if err := os.WriteFile(filepath.Join(dir, "mode.sh"), []byte("old"), 0o755); err != nil {
		t.Fatal(err)
	}
	runCases(t, dir, []testCase{
		{name: "read", src: `print(repr(file.read("data.txt")))`, want: `"hello\n"` + "\n"},
		{name: "read bytes", src: `print(repr(file.read_bytes("data.txt")))`, want: `b"hello\n"` + "\n"},
		{name: "read missing", src: `file.read("nope.csv")`, wantErr: "file.read: open nope.csv: no such file or directory"},
		{name: "read dir", src: `file.read("sub")`, wantErr: "file.read: read sub: is a directory"},
		{name: "write read", src: `file.mkdir("out")` + "\n" + `file.write("out/new.txt", "x")` + "\nfile.write(\"out/new.txt\", b\"yz\")\nprint(file.read(\"out/new.txt\"))", want: "yz\n"},
		{name: "write bad data", src: `file.write("o.txt", 1)`, wantErr: "file.write: for parameter data: got int, want str or bytes"},
		{name: "write onto dir", src: `file.write("sub", "x")`, wantErr: "file.write: write sub: is a directory"},
		{name: "write under file", src: `file.write("data.txt/x", "x")`, wantErr: "file.write: write data.txt/x: not a directory"},
		{name: "write without its directory", src: `file.write("nowhere/x.txt", "x")`, wantErr: "file.write: write nowhere/x.txt: its directory "},
		{name: "append", src: `file.append("log/l.txt", "a")` + "\nfile.append(\"log/l.txt\", b\"b\")\nprint(file.read(\"log/l.txt\"))", want: "ab\n"},
		{name: "exists", src: `print(file.exists("data.txt"), file.exists("sub"), file.exists("nope"))`, want: "True True False\n"},
		{name: "is_dir", src: `print(file.is_dir("data.txt"), file.is_dir("sub"), file.is_dir("nope"))`, want: "False True False\n"},
		{name: "glob", src: `print(file.glob("*.go"))`, want: `["x.go"]` + "\n"},
		{name: "glob dot", src: `print(file.glob(".*.go"))`, want: `[".dot.go"]` + "\n"},
		{name: "glob recursive", src: `print(file.glob("**/*.go"))`, want: `["sub/a.go", "sub/deep/b.go", "x.go"]` + "\n"},
		{name: "glob under", src: `print(file.glob("sub/**/*.go"))`, want: `["sub/a.go", "sub/deep/b.go"]` + "\n"},
		{name: "glob trailing", src: `print(file.glob("sub/**"))`, want: `["sub", "sub/a.go", "sub/deep", "sub/deep/b.go"]` + "\n"},
		{name: "glob literal", src: `print(file.glob("sub/a.go"), file.glob("sub/none.go"))`, want: `["sub/a.go"] []` + "\n"},
		{name: "glob bad", src: `file.glob("[")`, wantErr: `file.glob: "[": syntax error in pattern`},
		{name: "list_dir", src: `print(file.list_dir("sub"))`, want: `[".hidden", "a.go", "deep"]` + "\n"},
		{name: "list_dir missing", src: `file.list_dir("nope")`, wantErr: "file.list_dir: open nope: no such file or directory"},
		{name: "mkdir remove", src: `file.mkdir("m/n/o")` + "\nfile.mkdir(\"m/n/o\")\nprint(file.is_dir(\"m/n/o\"))\nfile.remove(\"m/n/o\")\nprint(file.exists(\"m/n/o\"))", want: "True\nFalse\n"},
		{name: "remove missing", src: `file.remove("nope")`, wantErr: "file.remove: remove nope: no such file or directory"},
		{name: "remove non-empty", src: `file.remove("sub")`, wantErr: "file.remove: remove sub: directory not empty"},
		{name: "paths", src: `print(file.basename("a/b/c.txt"), file.dirname("a/b/c.txt"), file.dirname("c.txt"), file.join("a", "b/", "../c"), repr(file.join()))`, want: `c.txt a/b . a/c ""` + "\n"},
		{name: "join bad", src: `file.join("a", 1)`, wantErr: "file.join: argument 2 is a int, want str"},
		{name: "abspath", src: `print(file.abspath("x/../y") == file.join(file.abspath("."), "y"))`, want: "True\n"},
	})
	// An atomic write keeps the file's permissions and leaves no temporary file.
	r := run(t, `file.write("mode.sh", "new")`, "", dir)
	check(t, r, "", "")
	st, err := os.Stat(filepath.Join(dir, "mode.sh"))
	if err != nil || st.Mode().Perm() != 0o755 {
		t.Fatalf("mode after write: %v, %v; want 0755", st.Mode(), err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if filepath.Ext(e.Name()) != "" && len(e.Name()) > 4 && e.Name()[0] == '.' && e.Name() != ".dot.go" {
			t.Errorf("leftover temporary file %s", e.Name())
		}
	}
	r = run(t, `print(file.abspath("a"))`, "", dir)
	check(t, r, filepath.Join(dir, "a")+"\n", "")
}

func TestWriteFileAtomicFailureKeepsOld(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("root ignores directory permissions")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o755)
	err := WriteFileAtomic(p, []byte("new"))
	if err == nil {
		t.Fatal("no error writing into a read-only directory")
	}
	if got, _ := os.ReadFile(p); string(got) != "old" {
		t.Fatalf("content %q after a failed write, want old", got)
	}
	r := run(t, `file.write("f.txt", "new")`, "", dir)
	check(t, r, "", "file.write: write f.txt: permission denied")
}

func TestGlobAbsolute(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a/x.txt": "", "b/y.txt": "", "z.md": ""})
	got, err := Glob("", filepath.Join(dir, "**", "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "a/x.txt"), filepath.Join(dir, "b/y.txt")}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Glob = %q, want %q", got, want)
	}
}
