package cfxarrow

import (
	"io"
	"runtime"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/fabricops/fabric/fabric/lib/frame"
)

// FilterSource returns a Source of the rows of src that match, projected
// by GET as Filter projects them, batch by batch: it holds a few batches
// at a time, whatever the size of src. Batches are filtered in parallel
// and come out in order. The returned source closes src.
func (q *Query) FilterSource(src frame.Source) (frame.Source, error) {
	cols, outSchema, err := q.prepare(src.Schema())
	if err != nil {
		return nil, err
	}
	return &filterSource{q: q, src: src, cols: cols, schema: outSchema, now: q.Now(),
		width: max(1, runtime.GOMAXPROCS(0))}, nil
}

// filterSource filters the batches of a source, width at a time.
type filterSource struct {
	q      *Query
	src    frame.Source
	cols   []int
	schema *arrow.Schema
	now    time.Time
	width  int
	ready  []arrow.Record // filtered batches not yet returned, in order
	err    error
}

func (s *filterSource) Schema() *arrow.Schema { return s.schema }

func (s *filterSource) Next() (arrow.Record, error) {
	for len(s.ready) == 0 {
		if s.err != nil {
			return nil, s.err
		}
		s.fill()
	}
	r := s.ready[0]
	s.ready = s.ready[1:]
	return r, nil
}

// fill reads up to width batches and filters them in parallel.
func (s *filterSource) fill() {
	var in []arrow.Record
	for len(in) < s.width {
		rec, err := s.src.Next()
		if err != nil {
			s.err = err
			break
		}
		in = append(in, rec)
	}
	out := make([]arrow.Record, len(in))
	errs := make([]error, len(in))
	done := make(chan int, len(in))
	for i := range in {
		go func() {
			out[i], errs[i] = s.q.filterRecord(in[i], s.cols, s.schema, s.now)
			in[i].Release()
			done <- i
		}()
	}
	for range in {
		<-done
	}
	// A failed batch or read fails the scan: nothing partial passes for
	// whole.
	failed := s.err
	if failed == io.EOF {
		failed = nil
	}
	for _, err := range errs {
		if err != nil {
			failed = err
			break
		}
	}
	if failed != nil {
		for _, r := range out {
			if r != nil {
				r.Release()
			}
		}
		s.err = failed
		return
	}
	for _, r := range out {
		if r == nil {
			continue
		}
		if r.NumRows() > 0 {
			s.ready = append(s.ready, r)
		} else {
			r.Release()
		}
	}
}

func (s *filterSource) Close() error {
	for _, r := range s.ready {
		r.Release()
	}
	s.ready = nil
	return s.src.Close()
}
