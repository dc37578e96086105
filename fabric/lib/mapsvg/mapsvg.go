// Package mapsvg draws a layered map (a deployment's nodes and their
// relationships) as a standalone SVG picture: the layers are columns from
// left to right, each node a labelled box coloured by its type, each
// relationship an arrow with its description as a tooltip. The picture
// needs no script, font or stylesheet from elsewhere, so it opens offline
// in any browser or image viewer.
package mapsvg

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"sort"
	"strings"
	"unicode/utf8"
)

// Node is a box of the map.
type Node struct {
	// ID names the node in relationships.
	ID string
	// Type is the node's kind (deployment, pipeline, dataset, stream,
	// object, ...): it picks the box's colour and is written under the
	// label.
	Type string
	// Label is the text of the box.
	Label string
	// Layer is the node's column, from 0 at the left.
	Layer int
}

// Edge is an arrow of the map, from the node From to the node To.
type Edge struct {
	From, To string
	// Label is the arrow's tooltip (its description).
	Label string
	// Type is the relationship's kind (service, read, write, ...): reads
	// are dashed.
	Type string
}

// Map is what is drawn: a title, an optional caption under it (a map's
// status and reason), the nodes and the edges.
type Map struct {
	Title, Caption string
	Nodes          []Node
	Edges          []Edge
}

// MaxNodes bounds what one picture draws; the nodes past it are left out
// and the caption says how many.
const MaxNodes = 2000

// Geometry of the picture, in pixels.
const (
	margin     = 24
	boxHeight  = 44
	rowGap     = 18
	colGap     = 120
	minBox     = 140
	maxBox     = 280
	charWidth  = 7
	maxLabel   = 38
	headHeight = 56
)

// colours of the boxes by node type; other types are grey.
var colours = map[string]string{
	"deployment": "#3b5bdb",
	"pipeline":   "#2b8a3e",
	"dataset":    "#e67700",
	"stream":     "#1098ad",
	"object":     "#862e9c",
}

// placed is a node with its box.
type placed struct {
	Node
	x, y, w int
}

// Render writes m as an SVG document to w. Nodes keep their order within
// a layer; an edge naming a node that is not drawn is left out. It
// returns how many nodes and edges it drew.
func Render(w io.Writer, m Map) (nodes, edges int, err error) {
	drawn := m.Nodes
	left := 0
	if len(drawn) > MaxNodes {
		drawn, left = drawn[:MaxNodes], len(drawn)-MaxNodes
	}
	cols := map[int][]Node{}
	var layers []int
	for _, n := range drawn {
		if _, ok := cols[n.Layer]; !ok {
			layers = append(layers, n.Layer)
		}
		cols[n.Layer] = append(cols[n.Layer], n)
	}
	sort.Ints(layers)

	at := map[string]placed{}
	x, height := margin, 0
	for _, l := range layers {
		width := minBox
		for _, n := range cols[l] {
			width = max(width, boxWidth(n))
		}
		y := margin + headHeight
		for _, n := range cols[l] {
			at[n.ID] = placed{Node: n, x: x, y: y, w: width}
			y += boxHeight + rowGap
		}
		height = max(height, y)
		x += width + colGap
	}
	width := max(x-colGap+margin+60, 480) // room for the loops of a column's last edges
	height = max(height-rowGap+margin, margin+headHeight+boxHeight+margin)
	caption := m.Caption
	if left > 0 {
		caption = strings.TrimSpace(fmt.Sprintf("%s (%d more nodes not drawn)", caption, left))
	}

	b := bufio.NewWriter(w)
	fmt.Fprintf(b, `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="DejaVu Sans, Verdana, sans-serif">
<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#495057"/></marker></defs>
<rect width="100%%" height="100%%" fill="#ffffff"/>
<text x="%d" y="%d" font-size="18" font-weight="bold" fill="#212529">%s</text>
`, width, height, width, height, margin, margin+14, esc(m.Title))
	if caption != "" {
		fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" font-size=\"12\" fill=\"#868e96\">%s</text>\n", margin, margin+34, esc(caption))
	}
	for _, e := range m.Edges {
		from, ok1 := at[e.From]
		to, ok2 := at[e.To]
		if !ok1 || !ok2 {
			continue
		}
		edges++
		// Forward (to a later column): right side to left side. Backward
		// (a read, drawn from what is read to its reader): left side to
		// right side. Within a column: a loop on the right side.
		y1, y2 := from.y+boxHeight/2, to.y+boxHeight/2
		var x1, x2, c1, c2 int
		switch {
		case to.x > from.x:
			x1, x2 = from.x+from.w, to.x
			dx := max((x2-x1)/2, 40)
			c1, c2 = x1+dx, x2-dx
		case to.x < from.x:
			x1, x2 = from.x, to.x+to.w
			dx := max((x1-x2)/2, 40)
			c1, c2 = x1-dx, x2+dx
		default:
			x1, x2 = from.x+from.w, to.x+to.w
			c1, c2 = x1+60, x2+60
		}
		dash := ""
		if e.Type == "read" {
			dash = ` stroke-dasharray="5,4"`
		}
		fmt.Fprintf(b, "<g class=\"edge\" data-from=\"%s\" data-to=\"%s\" data-type=\"%s\"><title>%s</title><path d=\"M%d,%d C%d,%d %d,%d %d,%d\" fill=\"none\" stroke=\"#495057\" stroke-width=\"1.5\"%s marker-end=\"url(#arrow)\"/></g>\n",
			esc(e.From), esc(e.To), esc(e.Type), esc(e.Label), x1, y1, c1, y1, c2, y2, x2, y2, dash)
	}
	for _, l := range layers {
		for _, n := range cols[l] {
			p := at[n.ID]
			colour, ok := colours[n.Type]
			if !ok {
				colour = "#495057"
			}
			fmt.Fprintf(b, "<g class=\"node\" data-id=\"%s\" data-type=\"%s\"><title>%s</title><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"6\" fill=\"%s\" fill-opacity=\"0.12\" stroke=\"%s\" stroke-width=\"1.5\"/>",
				esc(n.ID), esc(n.Type), esc(n.Type+": "+n.Label), p.x, p.y, p.w, boxHeight, colour, colour)
			fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" font-size=\"13\" fill=\"#212529\">%s</text>", p.x+10, p.y+19, esc(short(n.Label)))
			fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" font-size=\"10\" fill=\"%s\">%s</text></g>\n", p.x+10, p.y+35, colour, esc(n.Type))
		}
	}
	b.WriteString("</svg>\n")
	return len(at), edges, b.Flush()
}

// boxWidth is the width that fits n's label (cut to maxLabel characters).
func boxWidth(n Node) int {
	return min(max(minBox, 20+charWidth*utf8.RuneCountInString(short(n.Label))), maxBox)
}

// short cuts a long label with an ellipsis; the tooltip keeps it whole.
func short(s string) string {
	if utf8.RuneCountInString(s) <= maxLabel {
		return s
	}
	r := []rune(s)
	return string(r[:maxLabel-1]) + "…"
}

// esc escapes text for SVG (XML) content and attributes, dropping the
// control characters XML does not allow.
func esc(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0xFFFE || r == 0xFFFF {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	return html.EscapeString(s)
}
