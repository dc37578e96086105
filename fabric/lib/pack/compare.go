package pack

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
)

// Change types of a compare row.
const (
	ChangeOnlyInLeft  = "only_in_left"
	ChangeChanged     = "changed"
	ChangeUnchanged   = "unchanged"
	ChangeOnlyInRight = "only_in_right"
)

// ChangeTypes are the change types in the order of a summary's counts.
var ChangeTypes = []string{ChangeOnlyInLeft, ChangeChanged, ChangeUnchanged, ChangeOnlyInRight}

// Item is an artifact on one side of a comparison.
type Item struct {
	Type     string
	Name     string
	File     string
	Version  string
	Checksum string
	// Text is the artifact's content for the HTML page's line diff; nil
	// when it is not to be shown (credentials).
	Text []byte
}

// Side is one side of a comparison: a pack (PackName, PackVersion) or
// what is deployed (PackName "deployed").
type Side struct {
	PackName    string
	PackVersion string
	Items       []Item
}

// Count is a group of the summary's counts: how many rows, and how many
// of each artifact type.
type Count struct {
	Count  int            `json:"count"`
	ByType map[string]int `json:"by_type"`
}

// Summary is a compare report's summary (SPEC 2.11). The variables'
// maps are name to value; the caller masks secrets.
type Summary struct {
	Timestamp              string            `json:"timestamp"`
	LeftPackName           string            `json:"left_pack_name"`
	LeftPackVersion        string            `json:"left_pack_version"`
	RightPackName          string            `json:"right_pack_name"`
	RightPackVersion       string            `json:"right_pack_version"`
	CommonDeployVars       map[string]string `json:"common_deploy_vars"`
	ContextVars            map[string]string `json:"context_vars"`
	CustomerDeployVars     map[string]string `json:"customer_deploy_vars"`
	SingleTenantDeployVars map[string]string `json:"single_tenant_deploy_vars"`
	// CompareWith is "deployed" or "pack".
	CompareWith string `json:"compare_with"`
	// DeploymentType is "customer" or "single_tenant" ("" when only the
	// common artifacts are compared).
	DeploymentType string `json:"deployment_type"`
	// TotalCount is the number of rows.
	TotalCount int `json:"total_count"`
	// Counts has the four keys of ChangeTypes.
	Counts map[string]Count `json:"counts"`
}

// Row is a compare row (SPEC 2.11). A side's pack name and version are
// set when the artifact is on that side.
type Row struct {
	ArtifactType         string `json:"artifact_type"`
	ArtifactName         string `json:"artifact_name"`
	ArtifactVersionLeft  string `json:"artifact_version_left"`
	ArtifactVersionRight string `json:"artifact_version_right"`
	DefinitionFileName   string `json:"definition_file_name"`
	// ChangeType is one of ChangeTypes.
	ChangeType       string `json:"change_type"`
	PackNameLeft     string `json:"pack_name_left"`
	PackNameRight    string `json:"pack_name_right"`
	PackVersionLeft  string `json:"pack_version_left"`
	PackVersionRight string `json:"pack_version_right"`
	ChecksumLeft     string `json:"checksum_left"`
	ChecksumRight    string `json:"checksum_right"`
}

// Report is a comparison: its summary and rows. The texts of the items
// compared are kept for HTML's line diffs; a Report decoded from JSON
// has none (its page shows no diffs).
type Report struct {
	Summary Summary `json:"summary"`
	Rows    []Row   `json:"compare_rows"`
	// texts are the two texts of each row (by index), for HTML.
	texts [][2][]byte
}

// Compare compares left with right, matching items by type and name (an
// item given twice on a side matches the other side's second one): the
// rows sorted by Types order (unknown types after, by name) then name;
// a row is changed when the checksums differ. The counts and total_count
// (the number of rows) are filled into a copy of s, whose other fields
// the caller set, and its left/right pack names and versions are taken
// from the sides.
func Compare(left, right Side, s Summary) Report {
	type key struct {
		typ, name string
		n         int
	}
	type pair struct {
		l, r *Item
	}
	pairs := map[key]*pair{}
	var keys []key
	for side, items := range [2][]Item{left.Items, right.Items} {
		seen := map[[2]string]int{}
		for i := range items {
			it := &items[i]
			tn := [2]string{it.Type, it.Name}
			k := key{it.Type, it.Name, seen[tn]}
			seen[tn]++
			p := pairs[k]
			if p == nil {
				p = &pair{}
				pairs[k] = p
				keys = append(keys, k)
			}
			if side == 0 {
				p.l = it
			} else {
				p.r = it
			}
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if ta, tb := typeOrder(a.typ), typeOrder(b.typ); ta != tb {
			return ta < tb
		}
		if a.typ != b.typ {
			return a.typ < b.typ
		}
		if a.name != b.name {
			return a.name < b.name
		}
		return a.n < b.n
	})
	s.LeftPackName, s.LeftPackVersion = left.PackName, left.PackVersion
	s.RightPackName, s.RightPackVersion = right.PackName, right.PackVersion
	s.Counts = map[string]Count{}
	for _, c := range ChangeTypes {
		s.Counts[c] = Count{ByType: map[string]int{}}
	}
	r := Report{Rows: []Row{}}
	for _, k := range keys {
		p := pairs[k]
		row := Row{ArtifactType: k.typ, ArtifactName: k.name}
		var texts [2][]byte
		if p.l != nil {
			row.ArtifactVersionLeft, row.ChecksumLeft = p.l.Version, p.l.Checksum
			row.PackNameLeft, row.PackVersionLeft = left.PackName, left.PackVersion
			row.DefinitionFileName = p.l.File
			texts[0] = p.l.Text
		}
		if p.r != nil {
			row.ArtifactVersionRight, row.ChecksumRight = p.r.Version, p.r.Checksum
			row.PackNameRight, row.PackVersionRight = right.PackName, right.PackVersion
			if row.DefinitionFileName == "" {
				row.DefinitionFileName = p.r.File
			}
			texts[1] = p.r.Text
		}
		switch {
		case p.r == nil:
			row.ChangeType = ChangeOnlyInLeft
		case p.l == nil:
			row.ChangeType = ChangeOnlyInRight
		case p.l.Checksum == p.r.Checksum:
			row.ChangeType = ChangeUnchanged
		default:
			row.ChangeType = ChangeChanged
		}
		c := s.Counts[row.ChangeType]
		c.Count++
		c.ByType[row.ArtifactType]++
		s.Counts[row.ChangeType] = c
		r.Rows = append(r.Rows, row)
		r.texts = append(r.texts, texts)
	}
	s.TotalCount = len(r.Rows)
	r.Summary = s
	return r
}

// typeOrder is a type's place in Types (unknown types after).
func typeOrder(typ string) int {
	if i := slices.Index(Types, typ); i >= 0 {
		return i
	}
	return len(Types)
}

// WriteReport writes the report as a deterministic .tar.gz: report.json
// (indented JSON of r), and with html report.html (Report.HTML).
func WriteReport(w io.Writer, r Report, html bool) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("report.json: %w", err)
	}
	entries := []entry{{"report.json", b.Bytes()}}
	if html {
		page, err := r.HTML()
		if err != nil {
			return err
		}
		entries = append(entries, entry{"report.html", page})
	}
	return writeArchive(w, entries)
}

// changeTitle is a change type as the HTML page writes it.
func changeTitle(c string) string {
	return strings.ReplaceAll(c, "_", " ")
}
