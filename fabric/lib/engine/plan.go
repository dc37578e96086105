package engine

import (
	"fmt"
	"strings"

	"github.com/fabricops/fabric/fabric/lib/cfxql"
)

// The tags the run loop handles itself.
const (
	tagNewBlock   = "@c:new-block"
	tagSimpleLoop = "@c:simple-loop"
	tagCountLoop  = "@c:count-loop"
	tagDataLoop   = "@c:data-loop"
	tagTimedLoop  = "@c:timed-loop"
	tagIfShape    = "*exec:if-shape"
	tagEndIf      = "@exec:end-if"
)

func isLoop(tag string) bool {
	switch tag {
	case tagSimpleLoop, tagCountLoop, tagDataLoop, tagTimedLoop:
		return true
	}
	return false
}

type nodeKind uint8

const (
	nodeBot nodeKind = iota
	nodeIf
	nodeLoop
)

// node is a step of the plan: a bot, a conditional with its body (end is
// the step of its @exec:end-if) or a loop with its body.
type node struct {
	kind nodeKind
	step int // 0-based
	bot  *bot
	body []*node
	end  int
}

// plan is the structure of a pipeline: its blocks of nodes and the step
// starting each block (the @c:new-block; -1 for the first block).
type plan struct {
	blocks [][]*node
	starts []int
}

// compiler builds a plan, collecting the errors of every step.
type compiler struct {
	e     *Engine
	steps []Step
	bots  []*bot // per step, nil when unknown
	errs  []error
}

func (c *compiler) errorf(i int, err error) {
	c.errs = append(c.errs, stepError(i, c.steps[i].Tag, err))
}

// compile checks every step and builds the plan.
func (e *Engine) compile(steps []Step) (*plan, []error) {
	c := &compiler{e: e, steps: steps, bots: make([]*bot, len(steps))}
	for i, st := range steps {
		c.bots[i] = c.check(i, st)
	}
	pl := &plan{}
	i := 0
	start := -1
	for {
		nodes, next := c.seq(i, false)
		pl.blocks = append(pl.blocks, nodes)
		pl.starts = append(pl.starts, start)
		if next >= len(steps) {
			break
		}
		// steps[next] is @c:new-block (seq stops at nothing else at the
		// top level).
		start = next
		i = next + 1
	}
	return pl, c.errs
}

// check checks one step on its own and returns its bot (nil if unknown).
func (c *compiler) check(i int, st Step) *bot {
	tag := strings.TrimSpace(st.Tag)
	if tag == "" {
		c.errorf(i, fmt.Errorf("the step has no tag"))
		return nil
	}
	b, ok := c.e.lookup(tag)
	if !ok {
		msg := "unknown bot"
		for _, pre := range []string{"@", "*", "#"} {
			if alt := pre + strings.TrimLeft(tag, "@*#"); alt != tag {
				if _, ok := c.e.lookup(alt); ok {
					msg += "; did you mean " + alt + "?"
					break
				}
			}
		}
		if !strings.ContainsAny(tag[:1], "@*#") {
			msg += " (a tag starts with @, * or #, as in @dm:head)"
		}
		c.errorf(i, fmt.Errorf("%s", msg))
		return nil
	}
	p, err := newParams(b, st.Query)
	if err != nil {
		c.errorf(i, err)
		return b
	}
	if err := p.validate(true); err != nil {
		c.errorf(i, err)
		return b
	}
	if b.star && !hasVar(p.query) {
		if _, err := cfxql.Parse(p.query); err != nil {
			c.errorf(i, fmt.Errorf("invalid query: %w", err))
		}
	}
	return b
}

// seq builds the nodes from step i up to a @c:new-block, the end, or
// (with inIf) an @exec:end-if, and returns the index of the step it
// stopped at.
func (c *compiler) seq(i int, inIf bool) ([]*node, int) {
	var nodes []*node
	for i < len(c.steps) {
		tag := strings.TrimSpace(c.steps[i].Tag)
		switch {
		case tag == tagNewBlock:
			return nodes, i
		case tag == tagEndIf:
			if inIf {
				return nodes, i
			}
			c.errorf(i, fmt.Errorf("%s without %s", tagEndIf, tagIfShape))
			i++
		case tag == tagIfShape:
			body, j := c.seq(i+1, true)
			n := &node{kind: nodeIf, step: i, bot: c.bots[i], body: body, end: j}
			if j >= len(c.steps) || strings.TrimSpace(c.steps[j].Tag) != tagEndIf {
				where := "before the end of the pipeline"
				if j < len(c.steps) {
					where = fmt.Sprintf("before step %d (%s): a conditional may not span blocks", j+1, tagNewBlock)
				}
				c.errorf(i, fmt.Errorf("no matching %s %s", tagEndIf, where))
				nodes = append(nodes, body...)
				i = j
				continue
			}
			nodes = append(nodes, n)
			i = j + 1
		case isLoop(tag):
			body, j := c.seq(i+1, inIf)
			nodes = append(nodes, &node{kind: nodeLoop, step: i, bot: c.bots[i], body: body})
			return nodes, j
		default:
			if c.bots[i] != nil {
				nodes = append(nodes, &node{kind: nodeBot, step: i, bot: c.bots[i]})
			}
			i++
		}
	}
	return nodes, i
}
