package pack

import (
	"bytes"
	"fmt"
	"html/template"
	"sort"
	"strings"
)

// pageTemplate is the compare report's HTML page: self-contained (inline
// CSS, no scripts, no external resources), every value escaped by
// html/template.
var pageTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Pack compare: {{.Title}}</title>
<style>
body { font-family: sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.4em; }
h2 { font-size: 1.2em; margin-top: 1.5em; }
h3 { font-size: 1em; margin-top: 1.2em; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
td.num { text-align: right; }
code, td.code { font-family: monospace; white-space: pre-wrap; word-break: break-all; }
tr.changed td, td.changed { background: #fff4cc; }
tr.only_in_left td, tr.removed td.l { background: #ffe0e0; }
tr.only_in_right td, tr.added td.r { background: #e0ffe0; }
tr.changed td.l { background: #ffe0e0; }
tr.changed td.r { background: #e0ffe0; }
td.no { color: #888; text-align: right; font-family: monospace; }
table.diff { width: 100%; table-layout: fixed; }
table.diff td.code { width: 46%; }
table.diff td.no { width: 4%; }
</style>
</head>
<body>
<h1>Pack compare: {{.Title}}</h1>
<h2>Summary</h2>
<table>
<tr><th>Time</th><td>{{.S.Timestamp}}</td></tr>
<tr><th>Left</th><td>{{.S.LeftPackName}} {{.S.LeftPackVersion}}</td></tr>
<tr><th>Right</th><td>{{.S.RightPackName}} {{.S.RightPackVersion}}</td></tr>
<tr><th>Compared with</th><td>{{.S.CompareWith}}</td></tr>
<tr><th>Deployment type</th><td>{{.S.DeploymentType}}</td></tr>
<tr><th>Artifacts</th><td class="num">{{.S.TotalCount}}</td></tr>
</table>
{{range .Vars}}<h2>{{.Title}}</h2>
{{if .Pairs}}<table>
<tr><th>Name</th><th>Value</th></tr>
{{range .Pairs}}<tr><td>{{.Name}}</td><td class="code">{{.Value}}</td></tr>
{{end}}</table>
{{else}}<p>None.</p>
{{end}}{{end}}<h2>Counts</h2>
<table>
<tr><th>Change</th><th>Count</th><th>By type</th></tr>
{{range .Counts}}<tr class="{{.Class}}"><td>{{.Title}}</td><td class="num">{{.Count}}</td><td>{{.ByType}}</td></tr>
{{end}}</table>
<h2>Artifacts</h2>
{{if .Rows}}<table>
<tr><th>Type</th><th>Name</th><th>File</th><th>Change</th><th>Left version</th><th>Right version</th><th>Left checksum</th><th>Right checksum</th></tr>
{{range .Rows}}<tr class="{{.ChangeType}}"><td>{{.ArtifactType}}</td><td>{{.ArtifactName}}</td><td class="code">{{.DefinitionFileName}}</td><td>{{.Change}}</td><td>{{.ArtifactVersionLeft}}</td><td>{{.ArtifactVersionRight}}</td><td class="code" title="{{.ChecksumLeft}}">{{.ShortLeft}}</td><td class="code" title="{{.ChecksumRight}}">{{.ShortRight}}</td></tr>
{{end}}</table>
{{else}}<p>No artifacts.</p>
{{end}}{{if .Diffs}}<h2>Changes</h2>
{{range .Diffs}}<h3>{{.Type}} {{.Name}} <code>{{.File}}</code></h3>
<table class="diff">
<tr><th></th><th>{{$.LeftTitle}}</th><th></th><th>{{$.RightTitle}}</th></tr>
{{range .Lines}}<tr class="{{.Kind}}"><td class="no">{{if .LeftNo}}{{.LeftNo}}{{end}}</td><td class="code l">{{.Left}}</td><td class="no">{{if .RightNo}}{{.RightNo}}{{end}}</td><td class="code r">{{.Right}}</td></tr>
{{end}}</table>
{{end}}{{end}}</body>
</html>
`))

// pageVars is a table of variables on the page.
type pageVars struct {
	Title string
	Pairs []struct{ Name, Value string }
}

// pageCount is a row of the page's counts.
type pageCount struct {
	Class, Title, ByType string
	Count                int
}

// pageRow is a compare row on the page.
type pageRow struct {
	Row
	Change, ShortLeft, ShortRight string
}

// pageDiff is the line diff of a changed artifact.
type pageDiff struct {
	Type, Name, File string
	Lines            []diffLine
}

// HTML renders the report as one self-contained, well-formed HTML5 page
// (inline CSS, no scripts, no external resources, every value escaped):
// the summary, the variables, the counts, the rows, and for each changed
// artifact whose two Texts are known, a side-by-side line diff (left |
// right, changed lines marked). It is viewable offline.
func (r Report) HTML() ([]byte, error) {
	s := r.Summary
	side := func(name, version string) string {
		return strings.TrimSpace(name + " " + version)
	}
	data := struct {
		Title, LeftTitle, RightTitle string
		S                            Summary
		Vars                         []pageVars
		Counts                       []pageCount
		Rows                         []pageRow
		Diffs                        []pageDiff
	}{
		LeftTitle:  side(s.LeftPackName, s.LeftPackVersion),
		RightTitle: side(s.RightPackName, s.RightPackVersion),
		S:          s,
	}
	data.Title = data.LeftTitle + " vs " + data.RightTitle
	for _, v := range []struct {
		title string
		m     map[string]string
	}{
		{"Common deploy variables", s.CommonDeployVars},
		{"Context variables", s.ContextVars},
		{"Single-tenant deploy variables", s.SingleTenantDeployVars},
		{"Customer deploy variables", s.CustomerDeployVars},
	} {
		pv := pageVars{Title: v.title}
		for _, k := range sortedKeys(v.m) {
			pv.Pairs = append(pv.Pairs, struct{ Name, Value string }{k, v.m[k]})
		}
		data.Vars = append(data.Vars, pv)
	}
	for _, c := range ChangeTypes {
		n := s.Counts[c]
		var by []string
		types := sortedKeys(n.ByType)
		sort.SliceStable(types, func(i, j int) bool { return typeOrder(types[i]) < typeOrder(types[j]) })
		for _, t := range types {
			by = append(by, fmt.Sprintf("%s: %d", t, n.ByType[t]))
		}
		data.Counts = append(data.Counts, pageCount{Class: c, Title: changeTitle(c), Count: n.Count, ByType: strings.Join(by, ", ")})
	}
	for i, row := range r.Rows {
		data.Rows = append(data.Rows, pageRow{Row: row, Change: changeTitle(row.ChangeType), ShortLeft: shortSum(row.ChecksumLeft), ShortRight: shortSum(row.ChecksumRight)})
		if row.ChangeType != ChangeChanged || i >= len(r.texts) {
			continue
		}
		t := r.texts[i]
		if t[0] == nil || t[1] == nil {
			continue
		}
		data.Diffs = append(data.Diffs, pageDiff{Type: row.ArtifactType, Name: row.ArtifactName, File: row.DefinitionFileName, Lines: lineDiff(t[0], t[1])})
	}
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, data); err != nil {
		return nil, fmt.Errorf("report.html: %w", err)
	}
	return b.Bytes(), nil
}

// sortedKeys returns the keys of a map, sorted.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// shortSum shortens a checksum for a table: its algorithm and 12 hex
// digits (the title of the cell has it whole).
func shortSum(sum string) string {
	if alg, hex, ok := strings.Cut(sum, ":"); ok && len(hex) > 12 {
		return alg + ":" + hex[:12]
	}
	return sum
}
