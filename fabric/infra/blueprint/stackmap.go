package blueprint

import (
	"fmt"
	"strings"
)

// Map is a blueprint's map (deployment map, SPEC 2.8): {status, reason,
// data.stack}.
type Map struct {
	Status string  `json:"status"`
	Reason string  `json:"reason"`
	Data   MapData `json:"data"`
}

// MapData holds the stack.
type MapData struct {
	Stack Stack `json:"stack"`
}

// Stack is the map's graph: the blueprint, its pipelines and what they
// read and write, and how they relate.
type Stack struct {
	Name          string         `json:"name"`
	Description   string         `json:"description"`
	Nodes         []Node         `json:"nodes"`
	Relationships []Relationship `json:"relationships"`
}

// Node is a box of the map.
type Node struct {
	ID                string `json:"node_id"`
	Type              string `json:"node_type"`
	Layer             int    `json:"layer"`
	IconURL           string `json:"iconURL"`
	Label             string `json:"node_label"`
	DefaultVisibility string `json:"defaultVisibility,omitempty"`
}

// Relationship is an arrow of the map.
type Relationship struct {
	Left        string `json:"left_id"`
	Right       string `json:"right_id"`
	Description string `json:"description"`
	Type        string `json:"relationship_type"`
}

// icons are the map's icons, by node type.
var icons = map[string]string{
	"deployment": "/icons/deployment.svg",
	DepPipeline:  "/icons/pipeline.svg",
	DepDataset:   "/icons/dataset.svg",
	DepStream:    "/icons/stream.svg",
	DepObject:    "/icons/object.svg",
}

// BuildMap draws the map of b: the deployment (layer 0), its pipelines
// (layer 1, related by their kind: service, scheduled, action), and the
// datasets and streams they read and write (layer 2; the system streams
// hidden by default). A pipeline without a published version is drawn,
// without what it would use, and the map's status says so.
func BuildMap(b *Blueprint, rs []Resolved) Map {
	m := Map{Status: "ok", Data: MapData{Stack: Stack{Name: b.Name, Description: b.Text(), Nodes: []Node{}, Relationships: []Relationship{}}}}
	st := &m.Data.Stack
	seen := map[string]bool{}
	node := func(typ, name string, layer int) string {
		id := typ + ":" + name
		if !seen[id] {
			seen[id] = true
			n := Node{ID: id, Type: typ, Layer: layer, IconURL: icons[typ], Label: name}
			for _, s := range SystemStreams {
				if typ == DepStream && name == s {
					n.DefaultVisibility = "hidden"
				}
			}
			st.Nodes = append(st.Nodes, n)
		}
		return id
	}
	// arrow draws a relationship once (two entries of one pipeline would
	// draw its reads and writes twice).
	drawn := map[Relationship]bool{}
	arrow := func(r Relationship) {
		if !drawn[r] {
			drawn[r] = true
			st.Relationships = append(st.Relationships, r)
		}
	}
	root := node("deployment", b.ID, 0)
	st.Nodes[0].Label = b.Name
	var missing []string
	for _, r := range rs {
		p := node(DepPipeline, r.Name, 1)
		arrow(Relationship{Left: root, Right: p, Type: r.Kind,
			Description: fmt.Sprintf("runs %s (label %s)", r.Name, r.Key())})
		if !r.OK {
			missing = append(missing, r.Why)
			continue
		}
		for _, d := range PipelineUses(r.Pipeline) {
			id := node(d.Type, d.Name, 2)
			if d.Read {
				arrow(Relationship{Left: id, Right: p, Type: "read", Description: r.Name + " reads " + d.Name})
			}
			if d.Write {
				arrow(Relationship{Left: p, Right: id, Type: "write", Description: r.Name + " writes " + d.Name})
			}
		}
		for _, s := range SystemStreams {
			id := node(DepStream, s, 2)
			arrow(Relationship{Left: p, Right: id, Type: "write", Description: r.Name + " writes " + s})
		}
	}
	if len(missing) > 0 {
		m.Status = "partial"
		m.Reason = fmt.Sprintf("%d pipeline%s not drawn whole: %s", len(missing), plural(len(missing)), strings.Join(missing, "; "))
	}
	return m
}
