package cfxql

import (
	"strings"
	"time"
)

// Match evaluates the condition over a dict: a missing key is null. A
// dotted name (labels.site) is looked up as a flat key first, then
// through nested maps. "*" matches every dict.
func (q *Query) Match(row map[string]any) (bool, error) {
	return evalDict(q.root, row, q.clock()), nil
}

func evalDict(n node, row map[string]any, now time.Time) bool {
	switch x := n.(type) {
	case *allNode:
		return true
	case *andNode:
		return evalDict(x.l, row, now) && evalDict(x.r, row, now)
	case *orNode:
		return evalDict(x.l, row, now) || evalDict(x.r, row, now)
	case *notNode:
		return !evalDict(x.x, row, now)
	case *cmp:
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
func matchValue(c *cmp, v any, now time.Time) bool {
	v = normalize(v)
	if c.op == opNull {
		return (v == nil) != c.neg
	}
	if v == nil {
		return false
	}
	var pos bool
	switch c.op {
	case opEq, opIn:
		for i := range c.lits {
			if r, ok := compareLit(v, &c.lits[i], now); ok && r == 0 {
				pos = true
				break
			}
		}
	case opGt, opGe, opLt, opLe:
		if _, isBool := v.(bool); isBool {
			return false
		}
		r, ok := compareLit(v, &c.lits[0], now)
		return ok && ordered(c.op, r)
	case opContains:
		pos = strings.Contains(textOf(v), c.lits[0].text())
	case opStarts:
		pos = strings.HasPrefix(textOf(v), c.lits[0].text())
	case opEnds:
		pos = strings.HasSuffix(textOf(v), c.lits[0].text())
	case opMatches:
		pos = c.re.MatchString(textOf(v))
	case opBefore, opAfter:
		t, ok := asTime(v)
		if !ok {
			return false
		}
		r := t.Compare(c.t.point(now))
		return c.op == opBefore && r < 0 || c.op == opAfter && r > 0
	case opDuring:
		t, ok := asTime(v)
		if !ok {
			return false
		}
		start, end, incl := c.span(now)
		pos = !t.Before(start) && (t.Before(end) || incl && t.Equal(end))
	}
	return pos != c.neg
}

// ordered tells whether a comparison result r satisfies an order
// operator.
func ordered(o op, r int) bool {
	switch o {
	case opGt:
		return r > 0
	case opGe:
		return r >= 0
	case opLt:
		return r < 0
	case opLe:
		return r <= 0
	}
	return false
}

// span returns the interval of a during comparison.
func (c *cmp) span(now time.Time) (start, end time.Time, incl bool) {
	if c.t2 != nil {
		return rangeTo(c.t, c.t2, now)
	}
	return c.t.period(now)
}
