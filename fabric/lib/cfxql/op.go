package cfxql

// Op is a comparison operator, in its positive form (a negated operator
// is the positive one with Cmp.Negated true).
type Op int

// The operators, by their canonical spelling.
const (
	OpEq       Op = iota // = (with a list: membership)
	OpGt                 // >
	OpGe                 // >=
	OpLt                 // <
	OpLe                 // <=
	OpContains           // ~
	OpStarts             // ^~
	OpEnds               // ~$
	OpMatches            // ? (RE2)
	OpIn                 // in
	OpNull               // is null
	OpBefore             // before
	OpAfter              // after
	OpDuring             // during
)

// String returns the operator's canonical spelling ("=", "in", "is null").
func (o Op) String() string { return opSyms[o][0] }

// Holds reports whether the order operator o holds for a comparison
// result r (negative, zero or positive, as from strings.Compare): for
// OpGt, r > 0. It is false for the other operators.
func (o Op) Holds(r int) bool {
	switch o {
	case OpGt:
		return r > 0
	case OpGe:
		return r >= 0
	case OpLt:
		return r < 0
	case OpLe:
		return r <= 0
	}
	return false
}
