package pack

import (
	"fmt"
)

// Rendered is an artifact of a pack with its placeholders filled.
type Rendered struct {
	Artifact
	// Data is the artifact's file, rendered.
	Data []byte
	// Checksum is Checksum(Type, Data).
	Checksum string
}

// Render returns the artifacts of scope (only those, in
// Manifest.Artifacts order) with every {{ placeholder }} of their files
// replaced by its value in values (plain text substitution, one pass: a
// value is not rendered again), each with Checksum(Type, Data). A
// placeholder without a value is an error naming the file and the
// placeholder; so is a rendered YAML or JSON file that no longer parses
// (naming the file). Dataset files are data: they are not rendered. A
// folder artifact (IsFolder: a bot package, whose modules are code) is
// not rendered either: its Data is its folder's files as FolderArchive
// writes them, its Checksum their FolderChecksum.
func (p *Pack) Render(scope string, values map[string]string) ([]Rendered, error) {
	var out []Rendered
	for _, a := range p.Manifest.Artifacts {
		if orDefault(a.Scope, ScopeCommon) != scope {
			continue
		}
		if IsFolder(a.Type) {
			r, err := p.renderFolder(a)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
			continue
		}
		data, ok := p.files[a.File]
		if !ok {
			return nil, fmt.Errorf("%s: the file of artifact %s %q is not in the pack", a.File, a.Type, a.Name)
		}
		if a.Type != TypeDataset {
			var missing string
			data = placeholderRE().ReplaceAllFunc(data, func(ph []byte) []byte {
				name := string(placeholderRE().FindSubmatch(ph)[1])
				v, ok := values[name]
				if !ok {
					if missing == "" {
						missing = name
					}
					return ph
				}
				return []byte(v)
			})
			if missing != "" {
				return nil, fmt.Errorf("%s: placeholder {{ %s }} has no value (artifact %s %q, scope %s)", a.File, missing, a.Type, a.Name, scope)
			}
		}
		sum, err := Checksum(a.Type, data)
		if err != nil {
			return nil, fmt.Errorf("%s: rendered, artifact %s %q is not a valid YAML or JSON document: %s", a.File, a.Type, a.Name, oneLine(err.Error()))
		}
		a.Scope = orDefault(a.Scope, ScopeCommon)
		a.CreationPolicy = orDefault(a.CreationPolicy, PolicyFail)
		out = append(out, Rendered{Artifact: a, Data: data, Checksum: sum})
	}
	return out, nil
}

// renderFolder is a folder artifact as it is, its files archived.
func (p *Pack) renderFolder(a Artifact) (Rendered, error) {
	if err := p.checkFolder(a); err != nil {
		return Rendered{}, err
	}
	files := p.Folder(a.File)
	data, err := FolderArchive(files)
	if err != nil {
		return Rendered{}, fmt.Errorf("%s: artifact %s %q: %s", a.File, a.Type, a.Name, err)
	}
	a.Scope = orDefault(a.Scope, ScopeCommon)
	a.CreationPolicy = orDefault(a.CreationPolicy, PolicyFail)
	return Rendered{Artifact: a, Data: data, Checksum: FolderChecksum(files)}, nil
}
