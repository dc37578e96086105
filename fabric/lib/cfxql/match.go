package cfxql

import (
	"strings"
	"time"
)

// Match evaluates the condition over a dict: a missing key is null. A
// dotted name (labels.site) is looked up as a flat key first, then
// through nested maps. "*" matches every dict.
func (q *Query) Match(row map[string]any) (bool, error) {
	return evalDict(q.root, row, q.Now()), nil
}

func evalDict(n Node, row map[string]any, now time.Time) bool {
	switch x := n.(type) {
	case *All:
		return true
	case *And:
		return evalDict(x.l, row, now) && evalDict(x.r, row, now)
	case *Or:
		return evalDict(x.l, row, now) || evalDict(x.r, row, now)
	case *Not:
		return !evalDict(x.x, row, now)
	case *Cmp:
		return matchValue(x, lookup(row, x.col), now)
	}
	return false
}

// lookup returns the value of a name in a dict: the flat key, else the
// dotted path through nested maps (nil when absent).
func lookup(row map[string]any, name string) any {
	if v, ok := row[name]; ok {
		return v
	}
	for i := 0; i < len(name); i++ {
		if name[i] != '.' {
			continue
		}
		switch sub := row[name[:i]].(type) {
		case map[string]any:
			if v := lookup(sub, name[i+1:]); v != nil {
				return v
			}
		case map[string]string:
			if v, ok := sub[name[i+1:]]; ok {
				return v
			}
		}
	}
	return nil
}

// matchValue evaluates one comparison over one value: the semantics both
// evaluators share (the vector evaluator's fast paths do the same over
// typed arrays, and fall back to this for the rest).
func matchValue(c *Cmp, v any, now time.Time) bool {
	v = normalize(v)
	if c.op == OpNull {
		return (v == nil) != c.neg
	}
	if v == nil {
		return false
	}
	var pos bool
	switch c.op {
	case OpEq, OpIn:
		for i := range c.lits {
			if r, ok := compareLit(v, &c.lits[i], now); ok && r == 0 {
				pos = true
				break
			}
		}
	case OpGt, OpGe, OpLt, OpLe:
		if _, isBool := v.(bool); isBool {
			return false
		}
		r, ok := compareLit(v, &c.lits[0], now)
		return ok && c.op.Holds(r)
	case OpContains:
		pos = strings.Contains(textOf(v), c.lits[0].Text())
	case OpStarts:
		pos = strings.HasPrefix(textOf(v), c.lits[0].Text())
	case OpEnds:
		pos = strings.HasSuffix(textOf(v), c.lits[0].Text())
	case OpMatches:
		pos = c.re.MatchString(textOf(v))
	case OpBefore, OpAfter:
		t, ok := asTime(v)
		if !ok {
			return false
		}
		r := t.Compare(c.t.point(now))
		return c.op == OpBefore && r < 0 || c.op == OpAfter && r > 0
	case OpDuring:
		t, ok := asTime(v)
		if !ok {
			return false
		}
		start, end, incl := c.Span(now)
		pos = !t.Before(start) && (t.Before(end) || incl && t.Equal(end))
	}
	return pos != c.neg
}
