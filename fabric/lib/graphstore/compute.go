package graphstore

// Computed values are computed by a Computer the server installs (it
// evaluates their AQL expressions; the store knows no AQL). The store
// calls it with each document a write is about to store, its _key, _id
// and _rev set, for the collections that have computed values only.

// ComputeOp is the kind of write a computed value is computed on, as
// ArangoDB names it in computeOn.
type ComputeOp string

// The writes computed values are computed on.
const (
	ComputeInsert  ComputeOp = "insert"
	ComputeUpdate  ComputeOp = "update"
	ComputeReplace ComputeOp = "replace"
)

// Computer sets the computed values of info for a write of kind op into
// doc, the document as it will be stored. An error fails that document's
// write (its result's error). It is called under the store's write lock
// for some writes: it must be bounded.
type Computer func(info *CollectionInfo, op ComputeOp, doc Doc) error

// SetComputer installs the function that computes computed values (nil:
// none; a collection's computed values are then not computed).
func (s *Store) SetComputer(c Computer) {
	if c == nil {
		s.computer.Store(nil)
		return
	}
	s.computer.Store(&c)
}

// compute runs the computer on doc when info has computed values.
func (s *Store) compute(info *CollectionInfo, op ComputeOp, doc Doc) error {
	if len(info.ComputedValues) == 0 {
		return nil
	}
	c := s.computer.Load()
	if c == nil {
		return nil
	}
	return (*c)(info, op, doc)
}
