package aql

// Query is a parsed query: its operations in order, the last a RETURN
// (or, in a subquery, the operations whose RETURN makes its value).
type Query struct {
	Ops []Op
}

// Op is an operation of a query.
type Op interface{ op() }

// Expr is an expression.
type Expr interface{ expr() }

// For iterates a variable over a value (a collection, an array, a
// subquery's result).
type For struct {
	Var string
	In  Expr
}

// Traversal is FOR v[, e[, p]] IN min..max DIR start GRAPH g | edge
// collections [PRUNE cond] [OPTIONS {...}].
type Traversal struct {
	Vertex, Edge, Path string
	Min, Max           Expr
	Direction          string // OUTBOUND, INBOUND or ANY
	Start              Expr
	Graph              Expr // a graph name, or nil
	Edges              []EdgeCollection
	Prune              Expr
	Options            Expr
}

// EdgeCollection is an edge collection of a traversal, with its own
// direction ("" for the traversal's).
type EdgeCollection struct {
	Direction string
	Name      Expr
}

// ShortestPath is FOR v[, e] IN DIR SHORTEST_PATH start TO target
// GRAPH g | edge collections [OPTIONS {...}].
type ShortestPath struct {
	Vertex, Edge  string
	Direction     string
	Start, Target Expr
	Graph         Expr
	Edges         []EdgeCollection
	Options       Expr
}

// Filter keeps the rows a condition holds for.
type Filter struct{ Cond Expr }

// Let binds a variable.
type Let struct {
	Var   string
	Value Expr
}

// SortKey is an expression to sort by, and its direction.
type SortKey struct {
	Value Expr
	Desc  bool
}

// Sort orders the rows.
type Sort struct{ Keys []SortKey }

// Limit keeps Count rows after Offset (nil: 0).
type Limit struct {
	Offset, Count Expr
	full          *FullCount // counts the rows reaching it (Query.CountFull)
}

// Assign is VAR = expression (in COLLECT).
type Assign struct {
	Var   string
	Value Expr
}

// Collect groups rows: COLLECT groups [AGGREGATE ...] [INTO var [= expr]
// | INTO var KEEP vars] [WITH COUNT INTO var] [OPTIONS ...].
type Collect struct {
	Groups     []Assign
	Aggregates []Assign
	Into       string
	IntoValue  Expr
	Keep       []string // the variables INTO keeps of each row (nil: all)
	CountInto  string
	Options    Expr
}

// Return makes the query's values.
type Return struct {
	Distinct bool
	Value    Expr
}

func (*For) op()          {}
func (*Traversal) op()    {}
func (*ShortestPath) op() {}
func (*Filter) op()       {}
func (*Let) op()          {}
func (*Sort) op()         {}
func (*Limit) op()        {}
func (*Collect) op()      {}
func (*Return) op()       {}

// Literal is a constant: nil, a bool, a float64 or int64, a string.
type Literal struct{ Value any }

// Var is a variable (or a collection, when no variable has the name).
type Var struct{ Name string }

// Bind is a bind parameter; Collection marks @@name.
type Bind struct {
	Name       string
	Collection bool
}

// Attr is obj.name.
type Attr struct {
	Obj  Expr
	Name string
}

// Index is obj[index].
type Index struct{ Obj, Index Expr }

// Expand is obj[*] (with an optional .attr path after it, as Then).
type Expand struct {
	Obj  Expr
	Then Expr // an expression of the CURRENT element, or nil
}

// Current is the element an expansion is at.
type Current struct{}

// Call is a function call.
type Call struct {
	Name string
	Args []Expr
}

// Unary is a unary operator: NOT, -, +.
type Unary struct {
	Op string
	X  Expr
}

// Binary is a binary operator: OR AND == != < <= > >= IN NOT_IN LIKE
// NOT_LIKE =~ !~ + - * / % .. .
type Binary struct {
	Op   string
	L, R Expr
}

// Ternary is cond ? then : else (then nil: cond ?: else).
type Ternary struct{ Cond, Then, Else Expr }

// Array is [a, b, ...].
type Array struct{ Elems []Expr }

// ObjectField is a field of an object literal: a name, or a computed one.
type ObjectField struct {
	Name     string
	Computed Expr
	Value    Expr
}

// Object is {name: value, ...}.
type Object struct{ Fields []ObjectField }

// Subquery is ( FOR ... RETURN ... ).
type Subquery struct{ Query *Query }

func (*Literal) expr()  {}
func (*Var) expr()      {}
func (*Bind) expr()     {}
func (*Attr) expr()     {}
func (*Index) expr()    {}
func (*Expand) expr()   {}
func (*Current) expr()  {}
func (*Call) expr()     {}
func (*Unary) expr()    {}
func (*Binary) expr()   {}
func (*Ternary) expr()  {}
func (*Array) expr()    {}
func (*Object) expr()   {}
func (*Subquery) expr() {}
