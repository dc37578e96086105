package yamldoc

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// checker computes what the documents of one text would be with their
// aliases expanded (their nodes and depth) without expanding them: each
// node is measured once and its measure reused wherever an alias refers
// to it, so the work is linear in the text however much the aliases
// multiply it.
type checker struct {
	l Limits
	// done holds the measure of each node measured.
	done map[*yaml.Node]measure
	// open holds the nodes being measured (those containing the node
	// being looked at): an alias to one of them is recursive.
	open map[*yaml.Node]bool
	// written counts the nodes of the text (aliases not expanded),
	// expanded the nodes of the documents checked, aliases expanded.
	written, expanded int64
}

// measure is a node's size (its nodes, aliases expanded) and height (its
// levels).
type measure struct {
	size   int64
	height int
}

// saturated caps sizes, which grow exponentially with nested aliases.
const saturated = int64(1) << 62

func newChecker(l Limits) *checker {
	return &checker{l: l, done: map[*yaml.Node]measure{}, open: map[*yaml.Node]bool{}}
}

// check measures a document and refuses it when it is over a limit.
func (c *checker) check(doc *yaml.Node) error {
	m, err := c.measure(doc, 1, doc.Line)
	if err != nil {
		return err
	}
	c.expanded = min(c.expanded+m.size, saturated)
	if c.expanded-c.written > c.l.Expansion {
		return &LimitError{Limit: "alias expansion", Max: c.l.Expansion}
	}
	return nil
}

// measure returns n's measure at depth (its level in the document,
// aliases expanded); line is where n is referred to from.
func (c *checker) measure(n *yaml.Node, depth, line int) (measure, error) {
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			return measure{}, fmt.Errorf("yaml: line %d: unknown alias *%s", n.Line, n.Value)
		}
		if c.open[n.Alias] || n.Alias == n {
			return measure{}, &recursiveAlias{name: n.Value, line: n.Line}
		}
		return c.measure(n.Alias, depth, n.Line)
	}
	if m, ok := c.done[n]; ok {
		if depth-1+m.height > c.l.Depth {
			return measure{}, &LimitError{Limit: "depth", Max: int64(c.l.Depth), Line: line}
		}
		return m, nil
	}
	if depth > c.l.Depth {
		return measure{}, &LimitError{Limit: "depth", Max: int64(c.l.Depth), Line: n.Line}
	}
	c.written++
	c.open[n] = true
	m := measure{size: 1, height: 1}
	for _, child := range n.Content {
		cm, err := c.measure(child, depth+1, child.Line)
		if err != nil {
			return measure{}, err
		}
		m.size = min(m.size+cm.size, saturated)
		m.height = max(m.height, cm.height+1)
	}
	delete(c.open, n)
	c.done[n] = m
	return m, nil
}
