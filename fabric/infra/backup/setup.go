package backup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/artifact"
)

// SettingsName is the file a setup directory must hold.
const SettingsName = "settings.json"

// Settings is a setup directory's settings.json. Every field may be
// left out; an unknown one is refused (a misspelt field would otherwise
// be silently ignored).
type Settings struct {
	// Description says what the directory sets up.
	Description string `json:"description,omitempty"`
	// Webhook, when set, is the alert webhook endpoint setup configures,
	// on --port and --protocol.
	Webhook *WebhookSettings `json:"webhook,omitempty"`
	// Pipelines and Blueprints are the default of --pipelines and
	// --blueprints: set up only these (by name; blueprints by id or
	// name).
	Pipelines  []string `json:"pipelines,omitempty"`
	Blueprints []string `json:"blueprints,omitempty"`
}

// WebhookSettings names the webhook endpoint: its name, the stream it
// writes (default: its name), its URL path (default /) and the site of
// the event gateways that serve it (default: every site).
type WebhookSettings struct {
	Name   string `json:"name"`
	Stream string `json:"stream,omitempty"`
	Path   string `json:"path,omitempty"`
	Site   string `json:"site,omitempty"`
}

// ReadSettings reads dir's settings.json.
func ReadSettings(dir string) (Settings, error) {
	var s Settings
	path := filepath.Join(dir, SettingsName)
	data, err := readLimited(path)
	if errors.Is(err, fs.ErrNotExist) {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return s, fmt.Errorf("%s is not a directory", dir)
		}
		return s, fmt.Errorf("%s has no %s: a setup directory needs one (its fields may all be left out: {})", dir, SettingsName)
	}
	if err != nil {
		return s, err
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return s, fmt.Errorf("%s: %v", path, strings.TrimPrefix(err.Error(), "json: "))
	}
	if w := s.Webhook; w != nil && strings.TrimSpace(w.Name) == "" {
		return s, fmt.Errorf("%s: webhook.name: the webhook endpoint needs a name", path)
	}
	return s, nil
}

// MaxSetupFile bounds one file of a setup directory, and MaxSetupFiles
// the files of one of its folders.
const (
	MaxSetupFile  = api.MaxBundleFile
	MaxSetupFiles = 10000
)

// readLimited reads a file of at most MaxSetupFile bytes.
func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxSetupFile+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, trimPath(err))
	}
	if len(data) > MaxSetupFile {
		return nil, fmt.Errorf("%s: more than the %d MiB a setup file may hold", path, MaxSetupFile>>20)
	}
	return data, nil
}

// SetupOptions say what a setup does.
type SetupOptions struct {
	// Dir is the setup directory (a backup is one).
	Dir string
	// Pipelines and Blueprints, when given, are the only ones set up
	// (else those of settings.json, else all).
	Pipelines, Blueprints []string
	// Port and Protocol are the webhook endpoint's.
	Port     int
	Protocol string
	// VerifyOnly checks everything and changes nothing.
	VerifyOnly bool
}

// DefaultWebhookPort is demo setup's default --port (SPEC 8).
const DefaultWebhookPort = 7443

// SetupRow is what setup did (or, verifying, would do) with one
// artifact: its folder, its name, and its status.
type SetupRow struct {
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail,omitempty"`
}

// Setup statuses.
const (
	StatusAdded        = "added"
	StatusReplaced     = "replaced"
	StatusUnchanged    = "unchanged"
	StatusSkipped      = "skipped"
	StatusKept         = "kept"
	StatusWouldAdd     = "would add"
	StatusWouldReplace = "would replace"
	StatusMatches      = "matches"
	StatusDiffers      = "differs"
	StatusNoDeployment = "no deployment"
)

// SetupResult is what Setup did: a row per artifact, and the warnings
// (a missing folder, a stream kept with another definition, a mapping
// that differs).
type SetupResult struct {
	Rows     []SetupRow `json:"rows"`
	Warnings []string   `json:"warnings"`
}

// folder is a folder of a setup directory: its name, the other names
// it may have, and its kind.
type folder struct {
	dir     string
	aliases []string
	kind    *artifact.Kind // nil: pipelines, streams, mappings
}

// folders are a setup directory's folders, in the order setup pushes
// them: what a document names comes before it.
var folders = []folder{
	{dir: "pstreams", aliases: []string{"streams"}},
	{dir: "stacks", kind: artifact.Stack},
	{dir: "synthetic_profiles", aliases: []string{"synthetics"}, kind: artifact.Synthetics},
	{dir: "dashboards", kind: artifact.Dashboard},
	{dir: "dashboard_groups", aliases: []string{"groups"}, kind: artifact.DashGroup},
	{dir: "pipelines"},
	{dir: "blueprints", kind: artifact.Deployment},
	{dir: "endpoints", kind: artifact.EventEndpoint},
	{dir: "mappings"},
}

// file is a document file of a folder.
type file struct {
	path string
	data []byte
}

// readFolder reads the documents of a folder (its first name found),
// sorted by name; found is false when the folder is not there.
func readFolder(root string, f folder) (files []file, found bool, err error) {
	for _, name := range append([]string{f.dir}, f.aliases...) {
		dir := filepath.Join(root, name)
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, false, fmt.Errorf("%s: %v", dir, trimPath(err))
		}
		var n int
		for _, e := range entries {
			ext := strings.ToLower(filepath.Ext(e.Name()))
			if e.IsDir() || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			if ext != ".json" && ext != ".yaml" && ext != ".yml" && !(f.dir == "pipelines" && (ext == ".pipeline" || ext == ".txt")) {
				continue
			}
			if n++; n > MaxSetupFiles {
				return nil, true, fmt.Errorf("%s: more than the %d files a setup folder may hold", dir, MaxSetupFiles)
			}
			path := filepath.Join(dir, e.Name())
			data, err := readLimited(path)
			if err != nil {
				return nil, true, err
			}
			files = append(files, file{path: path, data: data})
		}
		return files, true, nil
	}
	return nil, false, nil
}

// only is a set of names given to --pipelines or --blueprints (nil: all),
// and which of them were found.
type only struct {
	names map[string]bool
	found map[string]bool
}

func newOnly(names []string) *only {
	if len(names) == 0 {
		return nil
	}
	o := &only{names: map[string]bool{}, found: map[string]bool{}}
	for _, n := range names {
		o.names[n] = true
	}
	return o
}

// takes reports whether any of names is one to set up, and notes it.
func (o *only) takes(names ...string) bool {
	if o == nil {
		return true
	}
	took := false
	for _, n := range names {
		if o.names[n] {
			o.found[n], took = true, true
		}
	}
	return took
}

// missing are the names given that no file had.
func (o *only) missing() []string {
	if o == nil {
		return nil
	}
	var out []string
	for n := range o.names {
		if !o.found[n] {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// Setup pushes a setup directory into the tenant of s: its persistent
// streams, stacks, synthetic profiles, dashboards, dashboard groups,
// pipelines (a versioned one, as a backup holds it, at its version),
// blueprints and endpoints, then the webhook endpoint of settings.json
// on o.Port and o.Protocol; then it checks the mappings. Everything is
// read and checked before anything is written: a document that is
// wrong changes nothing. A missing folder is warned of and skipped.
func Setup(ctx context.Context, s *Source, o SetupOptions) (*SetupResult, error) {
	settings, err := ReadSettings(o.Dir)
	if err != nil {
		return nil, err
	}
	if len(o.Pipelines) == 0 {
		o.Pipelines = settings.Pipelines
	}
	if len(o.Blueprints) == 0 {
		o.Blueprints = settings.Blueprints
	}
	p := &plan{src: s, opts: o, res: &SetupResult{Rows: []SetupRow{}, Warnings: []string{}},
		pending: map[*artifact.Kind]map[string]bool{}, onlyPipes: newOnly(o.Pipelines), onlyBlueprints: newOnly(o.Blueprints)}
	for _, f := range folders {
		files, found, err := readFolder(o.Dir, f)
		if err != nil {
			return nil, err
		}
		if !found {
			p.warn("no %s folder in %s: skipping it", f.dir, o.Dir)
			continue
		}
		if err := p.read(ctx, f, files); err != nil {
			return nil, err
		}
	}
	if m := p.onlyPipes.missing(); len(m) > 0 {
		return nil, fmt.Errorf("--pipelines: no pipeline named %s in %s", strings.Join(m, ", "), filepath.Join(o.Dir, "pipelines"))
	}
	if m := p.onlyBlueprints.missing(); len(m) > 0 {
		return nil, fmt.Errorf("--blueprints: no blueprint with the id or name %s in %s", strings.Join(m, ", "), filepath.Join(o.Dir, "blueprints"))
	}
	if err := p.webhook(settings.Webhook); err != nil {
		return nil, err
	}
	if err := p.check(ctx); err != nil {
		return nil, err
	}
	if !o.VerifyOnly {
		if err := p.apply(ctx); err != nil {
			return nil, err
		}
	}
	if err := p.checkMappings(ctx); err != nil {
		return nil, err
	}
	return p.res, nil
}
