package packs

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/secret"
	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/fabricops/fabric/fabric/lib/pack"
	"gopkg.in/yaml.v3"
)

// TypeConfig says which artifacts of a type pack create takes: all, or
// those named.
type TypeConfig struct {
	BackupAll bool     `json:"backup_all"`
	Artifacts []string `json:"artifacts"`
}

// ArtifactConfig is pack create's --artifact_config: the types listed,
// and with DefaultArtifactTypeBackup every type not listed, whole.
// Datasets are taken only when listed.
type ArtifactConfig struct {
	DefaultArtifactTypeBackup bool                  `json:"default_artifact_type_backup"`
	Artifact                  map[string]TypeConfig `json:"artifact"`
}

// DefaultArtifactConfig takes every artifact of every type but datasets.
var DefaultArtifactConfig = ArtifactConfig{DefaultArtifactTypeBackup: true}

// wants returns whether a type is packed, and which names (nil: all).
func (c ArtifactConfig) wants(typ string) (bool, map[string]bool) {
	tc, listed := c.Artifact[typ]
	switch {
	case !listed:
		return c.DefaultArtifactTypeBackup && typ != pack.TypeDataset, nil
	case tc.BackupAll:
		return true, nil
	}
	names := map[string]bool{}
	for _, n := range tc.Artifacts {
		names[n] = true
	}
	return len(names) > 0, names
}

// Check checks the config's types.
func (c ArtifactConfig) Check() error {
	for typ := range c.Artifact {
		if !slices.Contains(pack.Types, typ) {
			return fmt.Errorf("--artifact_config: no artifact type %q (want one of %s)", typ, strings.Join(pack.Types, ", "))
		}
	}
	return nil
}

// Create makes a pack of the tenant's current artifacts by the config's
// rules: its manifest and files, every artifact in the common scope with
// a creation policy of skip (what the tenant it is activated in has of
// the same name, such as the default endpoints, stays as it is). A
// credential's value is not packed: its file takes it from a secret
// deploy variable, NAME_value (dots and dashes as underscores), that
// activation asks for. A bot package is packed as the folder
// bot_packages/NAME of its files.
func (e Env) Create(ctx context.Context, name, version string, cfg ArtifactConfig) (pack.Manifest, map[string][]byte, error) {
	if err := cfg.Check(); err != nil {
		return pack.Manifest{}, nil, err
	}
	m := pack.Manifest{Name: name, Version: version, Description: "Created from the tenant's artifacts by pack create"}
	files := map[string][]byte{}
	add := func(typ, artName, ext string, data []byte) {
		file := typ + "s/" + pack.FileName(artName) + ext
		m.Artifacts = append(m.Artifacts, pack.Artifact{Type: typ, Name: artName, File: file, Scope: pack.ScopeCommon, CreationPolicy: pack.PolicySkip})
		if !pack.IsFolder(typ) { // a folder's files are added one by one
			files[file] = data
		}
	}
	addFile := func(path string, data []byte) { files[path] = data }
	for _, typ := range pack.Types {
		ok, names := cfg.wants(typ)
		if !ok {
			continue
		}
		take := func(n string) bool { return names == nil || names[n] }
		var err error
		switch typ {
		case pack.TypePipeline:
			err = e.createPipelines(ctx, take, add)
		case pack.TypeCredential:
			err = e.createCredentials(ctx, take, add, &m)
		case pack.TypeStream:
			err = e.createStreams(ctx, take, add)
		case pack.TypeBotPackage:
			err = e.createBotPackages(ctx, take, add, addFile)
		case pack.TypeDataset:
			err = fmt.Errorf("datasets are not packed by pack create: add their files to the pack's manifest by hand")
		default:
			err = e.createRecords(ctx, typ, take, add)
		}
		if err != nil {
			return pack.Manifest{}, nil, fmt.Errorf("packing the %s artifacts: %v", typ, err)
		}
		for n := range names {
			if !slices.ContainsFunc(m.Artifacts, func(a pack.Artifact) bool { return a.Type == typ && a.Name == n }) {
				return pack.Manifest{}, nil, fmt.Errorf("--artifact_config: the tenant has no %s named %q", typ, n)
			}
		}
	}
	return m, files, nil
}

func (e Env) createRecords(ctx context.Context, typ string, take func(string) bool, add func(typ, name, ext string, data []byte)) error {
	k := KindOf[typ]
	r := &artifact.Repo{Store: e.Store}
	recs, err := r.List(ctx, k)
	if err != nil {
		return err
	}
	for _, rec := range recs {
		n, _ := rec.Doc.String(k.Key)
		if !take(n) {
			continue
		}
		if k.Owner != nil && k.Owner(rec.Doc) != "" {
			continue // an app's page goes with its app
		}
		rec.Doc.Delete("saved_time")
		data, err := rec.Doc.YAML()
		if err != nil {
			return err
		}
		add(typ, n, ".yaml", data)
	}
	return nil
}

func (e Env) createPipelines(ctx context.Context, take func(string) bool, add func(typ, name, ext string, data []byte)) error {
	latest, err := e.Data.Pipelines(ctx)
	if err != nil {
		return err
	}
	for _, p := range latest {
		if !take(p.Name) {
			continue
		}
		p, err := e.Data.Pipeline(ctx, p.Name, p.Version)
		if err != nil {
			return err
		}
		p.Version, p.SavedTime = "", ""
		data, err := json.MarshalIndent(p, "", "  ")
		if err != nil {
			return err
		}
		add(pack.TypePipeline, p.Name, ".json", append(data, '\n'))
	}
	return nil
}

func (e Env) createCredentials(ctx context.Context, take func(string) bool, add func(typ, name, ext string, data []byte), m *pack.Manifest) error {
	infos, err := (&secret.Store{Store: e.Store}).List(ctx)
	if err != nil {
		return err
	}
	sort.Slice(infos, func(i, j int) bool { return infos[i].Name < infos[j].Name })
	for _, info := range infos {
		if !take(info.Name) {
			continue
		}
		v := credentialVar(info.Name)
		data, err := yaml.Marshal(map[string]string{"name": info.Name, "description": info.Description, "value": "{{ " + v + " }}"})
		if err != nil {
			return err
		}
		m.CommonVars = append(m.CommonVars, pack.Var{Name: v, Description: "the value of credential " + info.Name, Secret: true})
		add(pack.TypeCredential, info.Name, ".yaml", data)
	}
	return nil
}

// credentialVar is the deploy variable of a credential's value.
func credentialVar(name string) string {
	b := []byte(name + "_value")
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			b[i] = '_'
		}
	}
	if b[0] >= '0' && b[0] <= '9' {
		return "v_" + string(b)
	}
	return string(b)
}

func (e Env) createStreams(ctx context.Context, take func(string) bool, add func(typ, name, ext string, data []byte)) error {
	infos, err := streams.List(ctx, e.Store.JetStream())
	if err != nil {
		return err
	}
	for _, info := range infos {
		if info.System || !take(info.Name) {
			continue
		}
		d := streamDoc{Name: info.Name, Description: info.Description, RetentionHours: info.RetentionHours, MaxSizeMB: info.MaxSizeMB, MaxMessages: info.MaxMessages}
		data, err := yaml.Marshal(d)
		if err != nil {
			return err
		}
		add(pack.TypeStream, info.Name, ".yaml", data)
	}
	return nil
}
