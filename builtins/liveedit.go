package builtins

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	goio "io"
	"os"
	"os/exec"
	"time"

	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
)

// editPoll is how often a live edit looks whether the file was saved.
const editPoll = 250 * time.Millisecond

// liveEdit edits a record of kind k in the user's editor: the record is
// written to a private temporary file as YAML, the editor runs on it, and
// each save is checked and stored at once (at the revision the last one
// left, so an edit never overwrites someone else's change). A save that
// fails its check is reported and not stored; when the editor exits with
// the file's last content not stored, the file is kept and named, so
// nothing typed is lost. It returns how many saves were stored.
func (e *Env) liveEdit(thread *starlark.Thread, b *starlark.Builtin, k *client.ArtifactKind, name, editor string) (starlark.Value, error) {
	io := host.From(thread)
	if editor == "" {
		editor = cmp.Or(os.Getenv("VISUAL"), os.Getenv("EDITOR"), "vi")
	}
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		r, err := artifactRepo(ctx, c)
		if err != nil {
			return nil, err
		}
		rec, err := r.Get(ctx, k, name)
		if err != nil {
			return nil, err
		}
		rec.Doc.Delete("saved_time") // the store's, not the user's
		text, err := rec.Doc.YAML()
		if err != nil {
			return nil, err
		}
		f, err := os.CreateTemp("", "edit-"+fileSafe(name)+"-*.yaml")
		if err != nil {
			return nil, err
		}
		path := f.Name()
		_, werr := f.Write(text)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			os.Remove(path)
			return nil, werr
		}
		// The editor owns the terminal: Ctrl-C is its key (vi's way out
		// of insert mode), not an interrupt of the edit, so neither the
		// editor nor the saves are bound to the command's cancellation.
		ctx = context.WithoutCancel(ctx)
		ed := &edit{repo: r, kind: k, name: name, rev: rec.Revision, last: text, stored: true, out: io.Stderr}
		cmd := exec.Command("sh", "-c", editor+` "$1"`, "editor", path)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = io.Stdin, io.Stdout, io.Stderr
		if io.StdoutTerminal {
			// The editor gets the terminal itself, not the shell's
			// buffered streams (a full-screen editor needs the device).
			if tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0); err == nil {
				defer tty.Close()
				cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
				// What the saves did waits until the editor has given
				// the screen back.
				ed.out = &ed.held
				defer func() { io.Stderr.Write(ed.held.Bytes()) }()
			}
		}
		if err := cmd.Start(); err != nil {
			os.Remove(path)
			return nil, fmt.Errorf("cannot run the editor %q: %v", editor, err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		tick := time.NewTicker(editPoll)
		defer tick.Stop()
		var runErr error
	wait:
		for {
			select {
			case runErr = <-done:
				break wait
			case <-tick.C:
				ed.check(ctx, path, true)
			}
		}
		ed.check(ctx, path, false) // its failure is the command's error
		if runErr != nil {
			if now, err := os.ReadFile(path); err == nil && bytes.Equal(now, text) {
				os.Remove(path) // nothing was edited: nothing to keep
				return nil, fmt.Errorf("the editor %q failed (%v)", editor, runErr)
			}
			return nil, fmt.Errorf("the editor %q failed (%v); your edit is kept in %s", editor, runErr, path)
		}
		if !ed.stored {
			return nil, fmt.Errorf("%v; not stored: your edit is kept in %s", ed.err, path)
		}
		os.Remove(path)
		if ed.saves == 0 {
			fmt.Fprintf(io.Stderr, "%s %q: no change\n", k.Name, name)
		}
		return starlark.MakeInt(ed.saves), nil
	})
}

// edit is the state of a live edit: the revision the last stored save
// left, the text last seen, and whether it was stored.
type edit struct {
	repo   *client.ArtifactRepo
	kind   *client.ArtifactKind
	name   string
	out    goio.Writer // where each save is reported
	held   bytes.Buffer
	rev    uint64
	last   []byte
	stored bool
	err    error
	saves  int
}

// check stores the file's content when it changed since it was last seen;
// report says a failure too (a success always is). Only the goroutine
// that waits for the editor calls it.
func (ed *edit) check(ctx context.Context, path string, report bool) {
	text, err := os.ReadFile(path)
	if err != nil || bytes.Equal(text, ed.last) {
		return
	}
	ed.last = text
	rev, err := ed.repo.Edit(ctx, ed.kind, ed.name, text, ed.rev)
	if err != nil {
		ed.stored, ed.err = false, err
		if report {
			fmt.Fprintf(ed.out, "not stored: %v\n", err)
		}
		return
	}
	ed.rev, ed.stored, ed.err = rev, true, nil
	ed.saves++
	fmt.Fprintf(ed.out, "stored %s %q (revision %d)\n", ed.kind.Name, ed.name, rev)
}

// fileSafe keeps a name's letters, digits, '-' and '_' for a file name.
func fileSafe(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			b[i] = '_'
		}
	}
	return string(b)
}
