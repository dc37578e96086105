package mapsvg

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"testing"
)

// elements parses doc as XML and counts its elements by class attribute
// (and "svg" for the root), failing the test when it is not well formed.
func elements(t testing.TB, doc []byte) map[string]int {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(doc))
	n := map[string]int{}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return n
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, doc)
		}
		if se, ok := tok.(xml.StartElement); ok {
			if se.Name.Local == "svg" {
				n["svg"]++
			}
			for _, a := range se.Attr {
				if a.Name.Local == "class" {
					n[a.Value]++
				}
			}
		}
	}
}

func TestRender(t *testing.T) {
	deployment := Map{
		Title:   "Syslog alerting",
		Caption: "partial: 1 pipeline not drawn whole",
		Nodes: []Node{
			{ID: "deployment:d", Type: "deployment", Label: "Syslog alerting", Layer: 0},
			{ID: "pipeline:alerts", Type: "pipeline", Label: "alerts", Layer: 1},
			{ID: "stream:events", Type: "stream", Label: "events", Layer: 2},
			{ID: "dataset:last", Type: "dataset", Label: strings.Repeat("a very long dataset name ", 4), Layer: 2},
		},
		Edges: []Edge{
			{From: "deployment:d", To: "pipeline:alerts", Label: "runs alerts", Type: "service"},
			{From: "pipeline:alerts", To: "stream:events", Label: "alerts reads events", Type: "read"},
			{From: "pipeline:alerts", To: "dataset:last", Label: "alerts writes last", Type: "write"},
			{From: "pipeline:alerts", To: "stream:hidden", Label: "to a node not drawn", Type: "write"},
		},
	}
	hostile := Map{
		Title: `<script>alert("x")</script> & co`,
		Nodes: []Node{{ID: `a"b`, Type: "<t>", Label: "bell\a and nul\x00 and \xff", Layer: 0}, {ID: "b", Type: "x", Label: "b", Layer: 0}},
		Edges: []Edge{{From: `a"b`, To: "b", Label: "]]><!--", Type: "write"}},
	}
	for _, tc := range []struct {
		name         string
		m            Map
		nodes, edges int
		has, hasNot  []string
	}{
		{"deployment", deployment, 4, 3, []string{"Syslog alerting", "partial: 1 pipeline", `stroke-dasharray`, "…", "<title>alerts reads events</title>"}, []string{"stream:hidden"}},
		{"hostile text is escaped", hostile, 2, 1, []string{"&lt;script&gt;", "&amp; co"}, []string{"<script>", "\x00", "\a"}},
		{"empty map", Map{Title: "nothing"}, 0, 0, []string{"nothing"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			nodes, edges, err := Render(&b, tc.m)
			if err != nil {
				t.Fatal(err)
			}
			if nodes != tc.nodes || edges != tc.edges {
				t.Errorf("drew %d nodes and %d edges, want %d and %d", nodes, edges, tc.nodes, tc.edges)
			}
			got := elements(t, b.Bytes())
			if got["svg"] != 1 || got["node"] != tc.nodes || got["edge"] != tc.edges {
				t.Errorf("elements %v, want 1 svg, %d node, %d edge", got, tc.nodes, tc.edges)
			}
			for _, s := range tc.has {
				if !strings.Contains(b.String(), s) {
					t.Errorf("picture lacks %q", s)
				}
			}
			for _, s := range tc.hasNot {
				if strings.Contains(b.String(), s) {
					t.Errorf("picture has %q", s)
				}
			}
		})
	}
}

// TestRenderBounded draws at most MaxNodes nodes and says how many are
// left out.
func TestRenderBounded(t *testing.T) {
	var m Map
	for i := range MaxNodes + 5 {
		m.Nodes = append(m.Nodes, Node{ID: fmt.Sprint(i), Type: "stream", Label: fmt.Sprint(i), Layer: i % 3})
	}
	var b bytes.Buffer
	nodes, _, err := Render(&b, m)
	if err != nil {
		t.Fatal(err)
	}
	if nodes != MaxNodes || !strings.Contains(b.String(), "(5 more nodes not drawn)") {
		t.Errorf("drew %d nodes (want %d) and a caption saying 5 more", nodes, MaxNodes)
	}
}

// FuzzRender checks that any text makes a well-formed picture.
func FuzzRender(f *testing.F) {
	f.Add("title", "a", "pipeline", "label", "desc", 1)
	f.Add("<&>\"'", "\x00", "\xff", "]]>", "<!--", -3)
	f.Fuzz(func(t *testing.T, title, id, typ, label, desc string, layer int) {
		m := Map{Title: title, Caption: desc, Nodes: []Node{{ID: id, Type: typ, Label: label, Layer: layer}, {ID: id + "2", Type: typ, Label: label, Layer: layer + 1}},
			Edges: []Edge{{From: id, To: id + "2", Label: desc, Type: typ}}}
		var b bytes.Buffer
		if _, _, err := Render(&b, m); err != nil {
			t.Fatal(err)
		}
		elements(t, b.Bytes())
	})
}
