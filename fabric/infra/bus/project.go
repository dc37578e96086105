package bus

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/lib/safefile"
)

// A project links the client to a tenant of the local fabric, or to
// another fabric by its network configuration, under a name; "project
// use" switches the client between them. Projects belong to the client
// (they live in its home, beside its network configuration), not to a
// tenant: they are how it chooses which tenant to talk to.
type Project struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Type is "local" (a tenant of the local fabric) or "remote" (a
	// fabric reached by the project's own network configuration).
	Type      string `json:"type"`
	Tenant    string `json:"tenant"`
	SavedTime string `json:"saved_time"`
}

// Project types.
const (
	LocalProject  = "local"
	RemoteProject = "remote"
)

// ErrNoProject is the error of a missing project (errors.Is finds it in
// the error that names the project).
var ErrNoProject = errors.New("no such project")

type noProject string

func (n noProject) Error() string        { return fmt.Sprintf("no project named %q", string(n)) }
func (n noProject) Is(target error) bool { return target == ErrNoProject }

// CheckProjectName checks that name can name a project (and a directory).
func CheckProjectName(name string) error {
	ok := name != "" && len(name) <= 64
	for i := 0; ok && i < len(name); i++ {
		c := name[i]
		ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || i > 0 && (c == '.' || c == '_' || c == '-')
	}
	if !ok {
		return fmt.Errorf("bad project name %q: letters, digits, '.', '_' and '-', at most 64, starting with a letter or digit", name)
	}
	return nil
}

func projectsDir(home string) string        { return filepath.Join(home, "projects") }
func projectDir(home, name string) string   { return filepath.Join(projectsDir(home), name) }
func currentProjectFile(home string) string { return filepath.Join(home, "current_project") }
func projectRecord(home, name string) string {
	return filepath.Join(projectDir(home, name), "project.json")
}

// TenantConfigPath is the network configuration of a local tenant.
func TenantConfigPath(home, tenant string) string {
	return filepath.Join(home, "tenants", tenant, ConfigFileName)
}

// ConfigPath returns the path of the project's network configuration:
// the local tenant's, or the project's own copy.
func (p Project) ConfigPath(home string) string {
	if p.Type == LocalProject {
		return TenantConfigPath(home, p.Tenant)
	}
	return filepath.Join(projectDir(home, p.Name), ConfigFileName)
}

// AddProject stores a project: for a remote one, cfg is its network
// configuration (copied, private to the user). An existing project of
// that name is replaced only with overwrite.
func AddProject(home string, p Project, cfg *Config, overwrite bool) (Project, error) {
	if err := CheckProjectName(p.Name); err != nil {
		return p, err
	}
	switch p.Type {
	case LocalProject:
		if p.Tenant == "" {
			return p, errors.New("a local project names a tenant")
		}
	case RemoteProject:
		if cfg == nil {
			return p, errors.New("a remote project needs a network configuration")
		}
		if err := cfg.Validate(); err != nil {
			return p, fmt.Errorf("the network configuration is incomplete: %v", err)
		}
		p.Tenant = cfg.Tenant
	default:
		return p, fmt.Errorf("bad project type %q", p.Type)
	}
	if _, err := LoadProject(home, p.Name); err == nil && !overwrite {
		return p, fmt.Errorf("project %q exists already (--overwrite replaces it)", p.Name)
	}
	p.SavedTime = time.Now().UTC().Format("2006-01-02T15:04:05.000000")
	if err := os.MkdirAll(projectDir(home, p.Name), 0o700); err != nil {
		return p, fmt.Errorf("storing project %q: %v", p.Name, err)
	}
	if p.Type == RemoteProject {
		if err := cfg.Save(p.ConfigPath(home)); err != nil {
			return p, err
		}
	} else {
		_ = os.Remove(filepath.Join(projectDir(home, p.Name), ConfigFileName))
	}
	data, _ := json.MarshalIndent(p, "", "  ")
	if err := writePrivate(projectRecord(home, p.Name), append(data, '\n')); err != nil {
		return p, fmt.Errorf("storing project %q: %v", p.Name, err)
	}
	return p, nil
}

// LoadProject reads the project name.
func LoadProject(home, name string) (Project, error) {
	var p Project
	if err := CheckProjectName(name); err != nil {
		return p, err
	}
	data, err := os.ReadFile(projectRecord(home, name))
	if errors.Is(err, fs.ErrNotExist) {
		return p, noProject(name)
	}
	if err != nil {
		return p, fmt.Errorf("reading project %q: %v", name, err)
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return p, fmt.Errorf("project %q is corrupt (%s): %v", name, projectRecord(home, name), err)
	}
	return p, nil
}

// Projects returns the projects, by name.
func Projects(home string) ([]Project, error) {
	entries, err := os.ReadDir(projectsDir(home))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing the projects: %v", err)
	}
	var out []Project
	for _, e := range entries {
		if !e.IsDir() || CheckProjectName(e.Name()) != nil {
			continue
		}
		p, err := LoadProject(home, e.Name())
		if errors.Is(err, ErrNoProject) {
			continue // a directory left without its record
		}
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// DeleteProject removes the project name; deleting the project in use
// switches the client back to its default network configuration.
func DeleteProject(home, name string) error {
	if _, err := LoadProject(home, name); err != nil {
		return err
	}
	if cur, _ := CurrentProject(home); cur == name {
		if err := UseProject(home, ""); err != nil {
			return err
		}
	}
	if err := os.RemoveAll(projectDir(home, name)); err != nil {
		return fmt.Errorf("deleting project %q: %v", name, err)
	}
	return nil
}

// UseProject makes the client use the project name from now on, or its
// default network configuration when name is "".
func UseProject(home, name string) error {
	if name == "" {
		if err := os.Remove(currentProjectFile(home)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("switching to the default configuration: %v", err)
		}
		return nil
	}
	if _, err := LoadProject(home, name); err != nil {
		return err
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return err
	}
	return writePrivate(currentProjectFile(home), []byte(name+"\n"))
}

// CurrentProject returns the name of the project in use ("" for the
// default network configuration).
func CurrentProject(home string) (string, error) {
	data, err := os.ReadFile(currentProjectFile(home))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(data)), nil
}

// writePrivate writes a file only its owner reads, whole or not at all.
func writePrivate(path string, data []byte) error {
	return safefile.WriteMode(path, 0o600, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
