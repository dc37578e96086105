package aql

// The data-modification operations as the parser reads them: INSERT,
// UPDATE, REPLACE, REMOVE and UPSERT, each into a collection named by
// its name or a @@bind parameter, with OPTIONS.

// WriteKind is what a data-modification operation does.
type WriteKind string

// The kinds of data-modification operations.
const (
	WriteInsert  WriteKind = "insert"
	WriteUpdate  WriteKind = "update"
	WriteReplace WriteKind = "replace"
	WriteRemove  WriteKind = "remove"
	WriteUpsert  WriteKind = "upsert"
)

// Modify is a data-modification operation:
//
//	INSERT doc INTO|IN coll
//	UPDATE doc IN coll, UPDATE key WITH doc IN coll (REPLACE alike)
//	REMOVE key IN coll
//	UPSERT search INSERT doc UPDATE|REPLACE doc IN coll
//	UPSERT FILTER cond INSERT doc UPDATE|REPLACE doc IN coll (cond of CURRENT)
//
// each with OPTIONS {...}. After it, OLD and NEW are the document before
// and after the operation, for each row.
type Modify struct {
	Kind WriteKind
	// Key is the key expression of UPDATE/REPLACE ... WITH and REMOVE, or
	// UPSERT's search expression.
	Key Expr
	// Doc is the document of INSERT, UPDATE and REPLACE, or UPSERT's
	// insert expression.
	Doc Expr
	// Filter is the condition of UPSERT FILTER (instead of Key), true of
	// the document to update, which it names CURRENT.
	Filter Expr
	// Update is UPSERT's update (or replace, with Replace) expression.
	Update  Expr
	Replace bool
	// Collection is a *Var (the collection's name) or a *Bind (@@name).
	Collection Expr
	Options    Expr
}

func (*Modify) op() {}

// isModify reports whether a keyword begins a data-modification
// operation.
func isModify(keyword string) bool {
	switch keyword {
	case "INSERT", "UPDATE", "REPLACE", "REMOVE", "UPSERT":
		return true
	}
	return false
}

// endsWithModify reports whether a query's last operation is a
// data-modification operation (then its result is empty).
func endsWithModify(q *Query) bool {
	if len(q.Ops) == 0 {
		return false
	}
	_, ok := q.Ops[len(q.Ops)-1].(*Modify)
	return ok
}

// modify reads what follows INSERT, UPDATE, REPLACE, REMOVE or UPSERT.
func (p *parser) modify(keyword string) (Op, error) {
	m := &Modify{}
	var err error
	switch keyword {
	case "INSERT":
		m.Kind = WriteInsert
		if m.Doc, err = p.exprBeforeIn(); err != nil {
			return nil, err
		}
	case "UPDATE", "REPLACE":
		m.Kind = WriteUpdate
		if keyword == "REPLACE" {
			m.Kind = WriteReplace
		}
		first, err := p.exprBeforeIn()
		if err != nil {
			return nil, err
		}
		if p.accept("WITH") {
			m.Key = first
			if m.Doc, err = p.exprBeforeIn(); err != nil {
				return nil, err
			}
		} else {
			m.Doc = first
		}
	case "REMOVE":
		m.Kind = WriteRemove
		if m.Key, err = p.exprBeforeIn(); err != nil {
			return nil, err
		}
	case "UPSERT":
		m.Kind = WriteUpsert
		search := &m.Key
		if p.accept("FILTER") {
			search = &m.Filter
		}
		if *search, err = p.expr(); err != nil {
			return nil, err
		}
		if err := p.expect("INSERT"); err != nil {
			return nil, err
		}
		if m.Doc, err = p.expr(); err != nil {
			return nil, err
		}
		switch {
		case p.accept("UPDATE"):
		case p.accept("REPLACE"):
			m.Replace = true
		default:
			return nil, p.unexpected(p.peek())
		}
		if m.Update, err = p.exprBeforeIn(); err != nil {
			return nil, err
		}
	}
	if !p.accept("IN") && !p.accept("INTO") {
		return nil, p.unexpected(p.peek())
	}
	switch t := p.next(); t.Kind {
	case Ident:
		m.Collection = &Var{Name: t.Text}
	case BindColl:
		m.Collection = &Bind{Name: t.Text, Collection: true}
	default:
		return nil, p.unexpected(t)
	}
	if p.accept("OPTIONS") {
		if m.Options, err = p.expr(); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// exprBeforeIn reads an expression that IN (or INTO) ends: IN at its top
// level is not the operator (in parentheses it is).
func (p *parser) exprBeforeIn() (Expr, error) {
	saved := p.noIn
	p.noIn = p.depth + 1
	defer func() { p.noIn = saved }()
	return p.expr()
}
