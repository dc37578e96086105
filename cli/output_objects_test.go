package cli

import (
	"path/filepath"
	"testing"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/internal/testutil"
)

// TestOutputObjects: objects, and the commands that move CSV columns in
// and out of them.
func TestOutputObjects(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	s := newSession(t, "object-add", "object-get", "object-list", "object-meta", "object-delete", "object-delete-list",
		"object-to-content", "object-to-file", "content-to-object", "file-to-object", "copy-to-objstore")
	dir := s.vars["DIR"]
	write(t, dir, "notes.txt", "first version\n")
	write(t, dir, "notes2.txt", "second version, longer\n")
	write(t, dir, "report.csv", "host,cpu\nweb-1,93.5\n")
	write(t, dir, "a.txt", "alpha")
	write(t, dir, "b.txt", "bravo")
	write(t, dir, "files.csv", "id,path\n1,"+filepath.Join(dir, "a.txt")+"\n2,"+filepath.Join(dir, "b.txt")+"\n")
	write(t, dir, "missing-file.csv", "id,path\n1,"+filepath.Join(dir, "none.txt")+"\n")
	write(t, dir, "del.csv", "ref\nup/a.txt\nup/zzz.txt\n")
	write(t, dir, "noslash.csv", "ref\nnotes.txt\n")
	write(t, dir, "gone.csv", "ref\nup/zzz.txt\n")
	write(t, dir, "bad.zip", "not a zip")
	testutil.ZipFile(t, filepath.Join(dir, "bundle.zip"), [][2]string{
		{"default/packs/a.json", `{"a":1}`}, {"archive/2024/b.txt", "bee"}, {"toplevel", "x"}})

	s.steps(
		step{cmd: "object add --name notes.txt --folder docs --file $DIR/notes.txt --descr 'my notes'"},
		step{cmd: "object-add --name report.csv --folder reports --file $DIR/report.csv"},
		step{cmd: "object add --name notes.txt --folder docs --file $DIR/notes2.txt", code: 1},
		step{cmd: "object add --name notes.txt --folder docs --file $DIR/notes2.txt --overwrite yes"},
		step{cmd: "object add --name x --folder docs --file $DIR/none.txt", code: 1},
		step{cmd: "object add --name x --folder docs --file $DIR/notes.txt --overwrite maybe", code: 2},

		step{cmd: "object get --name notes.txt --folder docs"},
		step{cmd: "object get --name a.json --folder packs", code: 1},
		step{cmd: "object get --name notes.txt --folder docs --tofile $DIR/out/copy.txt"},
		step{cat: "$DIR/out/copy.txt", key: "object-get"},
		step{cmd: "object get --name report.csv --folder reports --todir $DIR/out"},
		step{cat: "$DIR/out/report.csv", key: "object-get"},
		step{cmd: "object get --name nope --folder docs", code: 1},
		step{cmd: "object get --name notes.txt --folder docs --tofile $DIR/x --todir $DIR", code: 2},

		step{cmd: "object list"},
		step{cmd: "object list --folder docs --json"},
		step{cmd: "object list --folder nothing-here"},
		step{cmd: "object meta --name notes.txt --folder docs"},
		step{cmd: "object meta --name nope --folder docs", code: 1},

		step{cmd: "file-to-object --inpcol path --outcol ref --file $DIR/files.csv --outfolder up --outfile $DIR/refs.csv"},
		step{cat: "$DIR/refs.csv", key: "file-to-object"},
		step{cmd: "file-to-object --inpcol nope --outcol ref --file $DIR/files.csv --outfolder up --outfile $DIR/x.csv", code: 1},
		step{cmd: "file-to-object --inpcol path --outcol ref --file $DIR/missing-file.csv --outfolder up --outfile $DIR/x.csv", code: 1},

		step{cmd: "object to-content --inpcol ref --outcol text --file $DIR/refs.csv --outfile $DIR/content.csv"},
		step{cat: "$DIR/content.csv", key: "object-to-content"},
		step{cmd: "object to-content --inpcol nope --outcol x --file $DIR/refs.csv --outfile $DIR/x.csv", code: 1},
		step{cmd: "object to-content --inpcol ref --outcol x --file $DIR/noslash.csv --outfile $DIR/x.csv", code: 1},
		step{cmd: "object to-content --inpcol ref --outcol x --file $DIR/del.csv --outfile $DIR/x.csv", code: 1},

		step{cmd: "content-to-object --inpcol text --outcol copy --file $DIR/content.csv --outfolder texts --outfile $DIR/stored.csv"},
		step{cat: "$DIR/stored.csv", key: "content-to-object"},
		step{cmd: "content-to-object --inpcol nope --outcol copy --file $DIR/content.csv --outfolder texts --outfile $DIR/x.csv", code: 1},
		step{cmd: "content-to-object --inpcol text --outcol copy --file $DIR/none.csv --outfolder texts --outfile $DIR/x.csv", code: 1},

		step{cmd: "object to-file --inpcol copy --outcol local --file $DIR/stored.csv --outfile $DIR/out/local.csv"},
		step{cat: "$DIR/out/local.csv", key: "object-to-file"},
		step{cmd: "object to-file --inpcol ref --outcol local --file $DIR/gone.csv --outfile $DIR/out/gone.csv", code: 1},

		step{cmd: "object delete-list --inpcol ref --file $DIR/del.csv --outfile $DIR/deleted.csv"},
		step{cat: "$DIR/deleted.csv", key: "object-delete-list"},
		step{cmd: "object delete-list --inpcol nope --file $DIR/del.csv --outfile $DIR/x.csv", code: 1},

		step{cmd: "copy-to-objstore --file $DIR/bundle.zip --verify"},
		step{cmd: "copy-to-objstore --file $DIR/bundle.zip"},
		step{cmd: "copy-to-objstore --file $DIR/bundle.zip"},
		step{cmd: "copy-to-objstore --file $DIR/bundle.zip --force"},
		step{cmd: "object get --name a.json --folder packs"},
		step{cmd: "copy-to-objstore --file $DIR/bad.zip", code: 1},
		step{cmd: "copy-to-objstore --file $DIR/none.zip", code: 1},

		step{cmd: "object delete --name notes.txt --folder docs"},
		step{cmd: "object delete --name notes.txt --folder docs", code: 1},
		step{cmd: "object list --folder docs"},
	)
	s.unreachable("object list")
}
