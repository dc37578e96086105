package cli

import (
	"archive/zip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
)

func TestObjects(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	dir := t.TempDir()
	src := write(t, dir, "notes.txt", "first version\n")

	out, errOut, code := run(t, "", "object", "add", "--name", "notes.txt", "--folder", "docs", "--file", src, "--descr", "my notes")
	if code != 0 || !strings.Contains(out, "docs    notes.txt  my notes     txt        14") {
		t.Fatalf("add: %d %q\n%s", code, errOut, out)
	}
	// A second add keeps the object unless --overwrite yes.
	write(t, dir, "notes.txt", "second version, longer\n")
	if _, errOut, code := run(t, "", "object-add", "--name", "notes.txt", "--folder", "docs", "--file", src); code != 1 || !strings.Contains(errOut, `object "notes.txt" exists in folder "docs"`) {
		t.Fatalf("add over existing: %d %q", code, errOut)
	}
	if out, _, _ := run(t, "", "object", "get", "--name", "notes.txt", "--folder", "docs"); out != "first version\n" {
		t.Fatalf("content after refused add: %q", out)
	}
	if _, errOut, code := run(t, "", "object", "add", "--name", "notes.txt", "--folder", "docs", "--file", src, "--overwrite", "yes"); code != 0 {
		t.Fatalf("overwrite: %q", errOut)
	}
	if out, _, _ := run(t, "", "object", "get", "--name", "notes.txt", "--folder", "docs"); out != "second version, longer\n" {
		t.Fatalf("content after overwrite: %q", out)
	}
	if _, errOut, code := run(t, "", "object", "add", "--name", "x", "--folder", "d", "--file", src, "--overwrite", "maybe"); code != 2 || !strings.Contains(errOut, `"maybe" is not one of yes, no`) {
		t.Fatalf("bad --overwrite: %d %q", code, errOut)
	}

	var meta api.Object
	out, _, _ = run(t, "", "object", "meta", "--name", "notes.txt", "--folder", "docs")
	if err := json.Unmarshal([]byte(out), &meta); err != nil || meta.FileSize != 23 || meta.FileType != "txt" ||
		!strings.HasPrefix(meta.DataPath, "docs/") || !strings.HasSuffix(meta.DataPath, "-notes.txt.data") || meta.Description != "" {
		t.Fatalf("meta: %v %+v", err, meta)
	}
	got := filepath.Join(dir, "out", "copy.txt")
	if err := os.Mkdir(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := run(t, "", "object", "get", "--name", "notes.txt", "--folder", "docs", "--tofile", got); code != 0 {
		t.Fatalf("get --tofile: %q", errOut)
	}
	if data, _ := os.ReadFile(got); string(data) != "second version, longer\n" {
		t.Fatalf("downloaded %q", data)
	}
	if _, _, code := run(t, "", "object", "get", "--name", "notes.txt", "--folder", "docs", "--todir", dir); code != 0 {
		t.Fatal("get --todir")
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := run(t, "", "object", "get", "--name", "nope", "--folder", "docs"); code != 1 || errOut != "error: object get: no object \"nope\" in folder \"docs\"\n" {
		t.Fatalf("missing object: %d %q", code, errOut)
	}

	out, _, _ = run(t, "", "object", "list", "--json")
	var list []api.Object
	if json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 {
		t.Fatalf("list: %s", out)
	}
	if _, _, code := run(t, "", "object", "delete", "--name", "notes.txt", "--folder", "docs"); code != 0 {
		t.Fatal("delete")
	}
	if out, errOut, _ := run(t, "", "object", "list"); out != "" || errOut != "no rows\n" {
		t.Fatalf("list after delete:\n%s%s", out, errOut)
	}
	if _, errOut, code := run(t, "", "object", "add", "--name", "x", "--folder", "d", "--file", filepath.Join(dir, "missing.txt")); code != 1 || !strings.Contains(errOut, "missing.txt: no such file or directory") {
		t.Fatalf("missing file: %d %q", code, errOut)
	}
}

func TestObjectColumnCommands(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	dir := t.TempDir()
	write(t, dir, "a.txt", "alpha")
	write(t, dir, "b.txt", "bravo")
	files := write(t, dir, "files.csv", "id,path\n1,"+filepath.Join(dir, "a.txt")+"\n2,"+filepath.Join(dir, "b.txt")+"\n")

	refs := filepath.Join(dir, "refs.csv")
	if _, errOut, code := run(t, "", "file-to-object", "--inpcol", "path", "--outcol", "ref", "--file", files, "--outfolder", "up", "--outfile", refs); code != 0 {
		t.Fatalf("file-to-object: %q", errOut)
	}
	content := filepath.Join(dir, "content.csv")
	if _, errOut, code := run(t, "", "object", "to-content", "--inpcol", "ref", "--outcol", "text", "--file", refs, "--outfile", content); code != 0 {
		t.Fatalf("to-content: %q", errOut)
	}
	if data, _ := os.ReadFile(content); !strings.Contains(string(data), ",up/a.txt,alpha") || !strings.Contains(string(data), ",up/b.txt,bravo") {
		t.Fatalf("to-content wrote:\n%s", data)
	}
	stored := filepath.Join(dir, "stored.csv")
	if _, errOut, code := run(t, "", "content-to-object", "--inpcol", "text", "--outcol", "copy", "--file", content, "--outfolder", "texts", "--outfile", stored); code != 0 {
		t.Fatalf("content-to-object: %q", errOut)
	}
	outdir := filepath.Join(dir, "dl")
	if err := os.Mkdir(outdir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := run(t, "", "object", "to-file", "--inpcol", "copy", "--outcol", "local", "--file", stored, "--outfile", filepath.Join(outdir, "local.csv")); code != 0 {
		t.Fatalf("to-file: %q", errOut)
	}
	matches, _ := filepath.Glob(filepath.Join(outdir, "*.txt"))
	if len(matches) != 2 {
		t.Fatalf("to-file downloaded %v", matches)
	}
	deleted := filepath.Join(dir, "deleted.csv")
	write(t, dir, "del.csv", "ref\nup/a.txt\nup/zzz.txt\n")
	if _, errOut, code := run(t, "", "object", "delete-list", "--inpcol", "ref", "--file", filepath.Join(dir, "del.csv"), "--outfile", deleted); code != 0 || !strings.Contains(errOut, "deleted 1 of 2") {
		t.Fatalf("delete-list: %d %q", code, errOut)
	}
	if data, _ := os.ReadFile(deleted); !strings.Contains(string(data), "up/a.txt,deleted") || !strings.Contains(string(data), `no object ""zzz.txt"" in folder ""up""`) {
		t.Fatalf("delete-list results:\n%s", data)
	}
	if _, errOut, code := run(t, "", "object", "to-content", "--inpcol", "nope", "--outcol", "x", "--file", refs, "--outfile", content); code != 1 || !strings.Contains(errOut, `has no column "nope"`) {
		t.Fatalf("bad column: %d %q", code, errOut)
	}
}

func TestCopyToObjstore(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	dir := t.TempDir()
	zipPath := filepath.Join(dir, "bundle.zip")
	f, _ := os.Create(zipPath)
	zw := zip.NewWriter(f)
	for name, body := range map[string]string{"default/packs/a.json": `{"a":1}`, "archive/2024/b.txt": "bee", "toplevel": "x"} {
		w, _ := zw.Create(name)
		w.Write([]byte(body))
	}
	zw.Close()
	f.Close()

	out, errOut, code := run(t, "", "copy-to-objstore", "--file", zipPath, "--verify")
	if code != 0 || strings.Count(out, "would upload") != 2 || !strings.Contains(out, "skipped: not BUCKET/PATH") {
		t.Fatalf("verify: %d %q\n%s", code, errOut, out)
	}
	if out, errOut, code := run(t, "", "copy-to-objstore", "--file", zipPath); code != 0 || strings.Count(out, "uploaded") != 2 {
		t.Fatalf("copy: %d %q\n%s", code, errOut, out)
	}
	if out, _, _ := run(t, "", "object", "get", "--name", "a.json", "--folder", "packs"); out != `{"a":1}` {
		t.Fatalf("default bucket entry is an object: %q", out)
	}
	if out, _, _ := run(t, "", "copy-to-objstore", "--file", zipPath); strings.Count(out, "skipped: same size exists") != 2 {
		t.Fatalf("second copy skips:\n%s", out)
	}
	if out, _, _ := run(t, "", "copy-to-objstore", "--file", zipPath, "--force"); strings.Count(out, "uploaded") != 2 {
		t.Fatalf("--force uploads again:\n%s", out)
	}
	bad := write(t, dir, "bad.zip", "not a zip")
	if _, errOut, code := run(t, "", "copy-to-objstore", "--file", bad); code != 1 || !strings.Contains(errOut, "is not a readable ZIP file") {
		t.Fatalf("bad zip: %d %q", code, errOut)
	}
	if _, errOut, code := run(t, "", "copy-to-objstore", "--file", "http://127.0.0.1:1/x.zip"); code != 1 || !strings.Contains(errOut, "cannot fetch http://127.0.0.1:1/x.zip") {
		t.Fatalf("unreachable URL: %d %q", code, errOut)
	}
}
