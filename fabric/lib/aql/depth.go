package aql

// depth measures how deeply a parsed query's nodes nest (a chain of
// 1 + 2 + 3 ... nests as deeply as parentheses do, and the evaluator
// recurses as deeply), without recursing itself; it stops counting past
// max.
func depth(q *Query, max int) int {
	type node struct {
		x     any
		level int
	}
	deepest := 0
	stack := []node{{q, 0}}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.level > deepest {
			deepest = n.level
			if deepest > max {
				return deepest
			}
		}
		if sub, ok := n.x.(*Query); ok {
			for _, op := range sub.Ops {
				stack = append(stack, node{op, n.level + 1})
			}
			continue
		}
		walk(n.x, func(child any) { stack = append(stack, node{child, n.level + 1}) })
	}
	return deepest
}
