package pack

import (
	"bytes"
	"fmt"
	"html"
	"sort"
	"strings"
)

// pageStyle is the compare report's inline CSS.
const pageStyle = `<style>
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
</style>`

// page writes the compare report's HTML page: self-contained (inline
// CSS, no scripts, no external resources), every value escaped. It is
// written by hand, not with html/template, whose reflection would keep
// every method of the shell's binary linked (3 MB more to load at each
// start).
type page struct{ b bytes.Buffer }

// raw writes markup as it is.
func (p *page) raw(parts ...string) {
	for _, s := range parts {
		p.b.WriteString(s)
	}
}

// text writes a value escaped.
func (p *page) text(s string) { p.b.WriteString(html.EscapeString(s)) }

// cell writes a table cell of class (none when "") holding a value.
func (p *page) cell(class, value string) {
	if class == "" {
		p.raw("<td>")
	} else {
		p.raw(`<td class="`, html.EscapeString(class), `">`)
	}
	p.text(value)
	p.raw("</td>")
}

// render writes the page of data.
func (p *page) render(d pageData) {
	p.raw("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Pack compare: ")
	p.text(d.Title)
	p.raw("</title>\n", pageStyle, "\n</head>\n<body>\n<h1>Pack compare: ")
	p.text(d.Title)
	p.raw("</h1>\n<h2>Summary</h2>\n<table>\n")
	s := d.S
	for _, kv := range [][2]string{{"Time", s.Timestamp}, {"Left", strings.TrimSpace(s.LeftPackName + " " + s.LeftPackVersion)},
		{"Right", strings.TrimSpace(s.RightPackName + " " + s.RightPackVersion)}, {"Compared with", s.CompareWith},
		{"Deployment type", s.DeploymentType}} {
		p.raw("<tr><th>", kv[0], "</th>")
		p.cell("", kv[1])
		p.raw("</tr>\n")
	}
	p.raw("<tr><th>Artifacts</th>")
	p.cell("num", fmt.Sprint(s.TotalCount))
	p.raw("</tr>\n</table>\n")
	for _, v := range d.Vars {
		p.raw("<h2>")
		p.text(v.Title)
		p.raw("</h2>\n")
		if len(v.Pairs) == 0 {
			p.raw("<p>None.</p>\n")
			continue
		}
		p.raw("<table>\n<tr><th>Name</th><th>Value</th></tr>\n")
		for _, pair := range v.Pairs {
			p.raw("<tr>")
			p.cell("", pair.Name)
			p.cell("code", pair.Value)
			p.raw("</tr>\n")
		}
		p.raw("</table>\n")
	}
	p.raw("<h2>Counts</h2>\n<table>\n<tr><th>Change</th><th>Count</th><th>By type</th></tr>\n")
	for _, c := range d.Counts {
		p.raw(`<tr class="`, html.EscapeString(c.Class), `">`)
		p.cell("", c.Title)
		p.cell("num", fmt.Sprint(c.Count))
		p.cell("", c.ByType)
		p.raw("</tr>\n")
	}
	p.raw("</table>\n<h2>Artifacts</h2>\n")
	if len(d.Rows) == 0 {
		p.raw("<p>No artifacts.</p>\n")
	} else {
		p.raw("<table>\n<tr><th>Type</th><th>Name</th><th>File</th><th>Change</th><th>Left version</th><th>Right version</th><th>Left checksum</th><th>Right checksum</th></tr>\n")
		for _, r := range d.Rows {
			p.raw(`<tr class="`, html.EscapeString(r.ChangeType), `">`)
			p.cell("", r.ArtifactType)
			p.cell("", r.ArtifactName)
			p.cell("code", r.DefinitionFileName)
			p.cell("", r.Change)
			p.cell("", r.ArtifactVersionLeft)
			p.cell("", r.ArtifactVersionRight)
			for _, sum := range [][2]string{{r.ChecksumLeft, r.ShortLeft}, {r.ChecksumRight, r.ShortRight}} {
				p.raw(`<td class="code" title="`, html.EscapeString(sum[0]), `">`)
				p.text(sum[1])
				p.raw("</td>")
			}
			p.raw("</tr>\n")
		}
		p.raw("</table>\n")
	}
	if len(d.Diffs) > 0 {
		p.raw("<h2>Changes</h2>\n")
	}
	for _, df := range d.Diffs {
		p.raw("<h3>")
		p.text(df.Type + " " + df.Name)
		p.raw(" <code>")
		p.text(df.File)
		p.raw("</code></h3>\n<table class=\"diff\">\n<tr><th></th><th>")
		p.text(d.LeftTitle)
		p.raw("</th><th></th><th>")
		p.text(d.RightTitle)
		p.raw("</th></tr>\n")
		for _, l := range df.Lines {
			p.raw(`<tr class="`, html.EscapeString(l.Kind), `">`)
			p.cell("no", lineNo(l.LeftNo))
			p.cell("code l", l.Left)
			p.cell("no", lineNo(l.RightNo))
			p.cell("code r", l.Right)
			p.raw("</tr>\n")
		}
		p.raw("</table>\n")
	}
	p.raw("</body>\n</html>\n")
}

// lineNo is a line number in a diff, "" for none.
func lineNo(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprint(n)
}

// pageData is what the page shows.
type pageData struct {
	Title, LeftTitle, RightTitle string
	S                            Summary
	Vars                         []pageVars
	Counts                       []pageCount
	Rows                         []pageRow
	Diffs                        []pageDiff
}

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
	data := pageData{
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
	var pg page
	pg.render(data)
	return pg.b.Bytes(), nil
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
