package pod

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/libraries"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/lib/cfxql"
	"github.com/nats-io/nats.go/micro"
)

// installTimeout bounds the staging of one library request's files.
const installTimeout = 5 * time.Minute

// loadLibraries installs what is staged in the pod's package directory
// (what an install staged before this start) and keeps what is
// installed: the pod's installed versions until it restarts.
func (p *Pod) loadLibraries() {
	if p.PackageDir == "" {
		return
	}
	installed, refused, err := libraries.Promote(p.PackageDir)
	if err != nil {
		p.Logf("libraries: %v", err)
	}
	// A library over the package directory's bounds is left out, a line
	// each; the pod serves with the others.
	for _, r := range refused {
		p.Logf("libraries: %v", r)
	}
	p.installedMu.Lock()
	p.installed = installed
	p.installedMu.Unlock()
}

// KeepInstalled narrows the pod's installed libraries to those loaded
// (by library name): a worker leaves out those over the bounds of what a
// pod holds, and library list then shows them as not installed rather
// than up to date.
func (p *Pod) KeepInstalled(loaded map[string]fs.FS) {
	p.installedMu.Lock()
	defer p.installedMu.Unlock()
	for name := range p.installed {
		if _, ok := loaded[name]; !ok {
			delete(p.installed, name)
		}
	}
}

// installedLibs are the pod's installed libraries.
func (p *Pod) installedLibs() map[string]libraries.Name {
	p.installedMu.Lock()
	defer p.installedMu.Unlock()
	return maps.Clone(p.installed)
}

// handleLibraries answers library list and install (SPEC 4.11): the pod's
// rows, or the files it staged.
func (p *Pod) handleLibraries(r micro.Request) {
	var req api.LibrariesRequest
	if err := json.Unmarshal(r.Data(), &req); err != nil {
		respondJSON(r, api.Error{Error: "bad libraries request: " + err.Error()})
		return
	}
	ans := api.PodLibraries{PodID: p.ID, Hostname: p.hostname, SiteName: p.Site}
	if req.QLQuery != "" {
		ok, err := p.matches(req.QLQuery)
		if err != nil {
			respondJSON(r, api.Error{Error: "--ql-query: " + err.Error()})
			return
		}
		if !ok {
			ans.Skipped = true
			respondJSON(r, ans)
			return
		}
	}
	var staged map[string]libraries.Name
	if p.PackageDir != "" {
		var err error
		if staged, err = libraries.Staged(p.PackageDir); err != nil {
			respondJSON(r, api.Error{Error: fmt.Sprintf("pod %s: %v", p.ID, err)})
			return
		}
	}
	switch req.Op {
	case "list":
		ans.Rows = libraries.Rows(req.Latest, p.installedLibs(), staged)
	case "install":
		ans.Install = p.install(req.Install, staged)
	default:
		respondJSON(r, api.Error{Error: fmt.Sprintf("unknown libraries operation %q", req.Op)})
		return
	}
	respondJSON(r, ans)
}

// install stages files in the package directory, each one newer than
// what the pod has installed or staged.
func (p *Pod) install(files []api.LibraryFile, staged map[string]libraries.Name) []api.LibraryInstallRow {
	rows := []api.LibraryInstallRow{}
	installed := p.installedLibs()
	row := func(f api.LibraryFile, status, msg string) {
		rows = append(rows, api.LibraryInstallRow{PodID: p.ID, Hostname: p.hostname, Filename: f.Filename, Status: status, Message: msg})
	}
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	var st *store.Store
	for _, f := range files {
		if p.PackageDir == "" {
			row(f, "FAILED", "the pod has no package directory")
			continue
		}
		if inst, ok := installed[f.Package]; ok && libraries.CompareVersions(f.Version, inst.Version) <= 0 {
			row(f, api.LibraryUpToDate, "version "+inst.Version+" is installed")
			continue
		}
		if s, ok := staged[f.Package]; ok && libraries.CompareVersions(f.Version, s.Version) <= 0 {
			row(f, api.LibraryStaged, "version "+s.Version+" is staged already; it takes effect when the pod restarts")
			continue
		}
		if st == nil {
			var err error
			if st, err = store.Open(ctx, p.nc); err != nil {
				row(f, "FAILED", err.Error())
				continue
			}
		}
		if err := fetch(ctx, st, p.PackageDir, f); err != nil {
			row(f, "FAILED", err.Error())
			continue
		}
		p.Logf("staged library %s", f.Filename)
		row(f, api.LibraryStaged, "takes effect when the pod restarts")
	}
	return rows
}

// matches evaluates a CFXQL filter on the pod's info: its fields, with
// those of its labels and resources at the top too (site_name,
// fx_pod_version, cpu_load1, ...).
func (p *Pod) matches(query string) (bool, error) {
	q, err := cfxql.Parse(query)
	if err != nil {
		return false, err
	}
	data, err := json.Marshal(p.Info())
	if err != nil {
		return false, err
	}
	fields := map[string]any{}
	if err := json.Unmarshal(data, &fields); err != nil {
		return false, err
	}
	for _, nested := range []string{"labels", "resources"} {
		if m, ok := fields[nested].(map[string]any); ok {
			for k, v := range m {
				if _, taken := fields[k]; !taken {
					fields[k] = v
				}
			}
		}
	}
	return q.Match(fields)
}

// fetch stages the object store's library file f in the package
// directory dir.
func fetch(ctx context.Context, st *store.Store, dir string, f api.LibraryFile) error {
	n, err := libraries.Parse(f.Filename)
	if err != nil {
		return err
	}
	r, size, err := st.GetBlob(ctx, api.LibrariesFolder+f.Filename)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("no library file %s in the object store", f.Filename)
	}
	if err != nil {
		return err
	}
	defer r.Close()
	if size > libraries.MaxSize {
		return fmt.Errorf("%s is larger than %d MiB", f.Filename, libraries.MaxSize>>20)
	}
	return libraries.Stage(dir, n, r)
}
