package client

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/fabricops/fabric/fabric/infra/local"
	"github.com/fabricops/fabric/fabric/lib/release"
)

// StageLocalBuild copies the build directory dir (verified) into the
// local fabric's builds directory, under its own name, where the local
// fabric looks up the build an upgrade names; a copy there already is
// replaced. It returns the copy, verified again.
func StageLocalBuild(home, dir string) (*release.Build, error) {
	b, err := release.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := b.Verify(); err != nil {
		return nil, err
	}
	builds := local.BuildsDir(home)
	if err := os.MkdirAll(builds, 0o700); err != nil {
		return nil, err
	}
	name := filepath.Base(b.Dir)
	dest := filepath.Join(builds, name)
	if filepath.Clean(b.Dir) == filepath.Clean(dest) {
		return b, nil
	}
	tmp, err := os.MkdirTemp(builds, "."+name+"-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	for _, f := range append([]string{release.SumsFile, release.VersionFile}, release.Binaries...) {
		if err := copyFile(b.Path(f), filepath.Join(tmp, f)); err != nil {
			return nil, fmt.Errorf("copying the build to %s: %w", builds, err)
		}
	}
	if err := os.Chmod(tmp, 0o700); err != nil {
		return nil, err
	}
	if err := os.RemoveAll(dest); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, dest); err != nil {
		return nil, err
	}
	staged, err := release.Open(dest)
	if err == nil {
		err = staged.Verify()
	}
	return staged, err
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, st.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
