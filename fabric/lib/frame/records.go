package frame

import "github.com/apache/arrow-go/v18/arrow"

// Records returns the frame's record batches, in order, none empty. The
// frame keeps them: a caller that holds one past the frame's Release
// must Retain it.
func (f *Frame) Records() []arrow.Record {
	return append([]arrow.Record(nil), f.recs...)
}

// FromRecords builds a Frame of batches of schema, taking over the
// caller's reference to each (empty batches are released and dropped).
func FromRecords(schema *arrow.Schema, recs []arrow.Record) *Frame {
	return newFrame(schema, recs)
}
