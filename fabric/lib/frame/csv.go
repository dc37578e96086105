package frame

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
)

// csvSource reads CSV text as record batches. The first batch is read when
// the source opens: its header names the columns and its rows decide their
// types. Later batches are cut by a splitter goroutine and converted by
// workers in parallel, then handed out in order; at most a few batches are
// in flight at once.
type csvSource struct {
	name   string
	schema *arrow.Schema
	cols   []textColumn
	sample int // rows the types were inferred from
	first  arrow.Record
	err    error

	order chan chan csvResult
	done  chan struct{}
	wg    sync.WaitGroup
	once  sync.Once
}

type csvResult struct {
	rec arrow.Record
	err error
}

// newCSVSource reads the header and first batch of r. name prefixes errors.
func newCSVSource(r io.Reader, name string, o options) (*csvSource, error) {
	sp := newSplitter(r)
	c, err := sp.next(o.batch+1, maxChunk)
	if err == io.EOF {
		return nil, fmt.Errorf("%s: empty file: no header row", name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	data := c.data
	p := 0
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		p = 3
	}
	tok := &tokenizer{}
	var head textBatch
	p, line, terr := tok.tokenize(data, p, c.line, 1, &head)
	if terr != nil {
		return nil, fmt.Errorf("%s: line %d: %s", name, terr.line, terr.msg)
	}
	if head.rows == 0 {
		return nil, fmt.Errorf("%s: empty file: no header row", name)
	}
	names := make([]string, tok.ncols)
	for i := range names {
		names[i] = string(appendUTF8(nil, head.field(0, i)))
	}
	names = uniqueNames(names)
	b := &textBatch{ncols: tok.ncols}
	if _, _, terr := tok.tokenize(data, p, line, o.batch, b); terr != nil {
		return nil, fmt.Errorf("%s: line %d: %s", name, terr.line, terr.msg)
	}
	s := &csvSource{name: name, cols: inferText(names, b), sample: b.rows, done: make(chan struct{})}
	s.schema = textSchema(s.cols)
	rec, cerr := convertText(s.schema, s.cols, b)
	if cerr != nil {
		return nil, describeConvError(name, s.cols, b, cerr, s.sample, "line")
	}
	s.first = rec
	sp.recycle(c.data)
	s.start(sp, tok, o)
	return s, nil
}

// uniqueNames names empty columns "Unnamed: i" and suffixes repeated
// names with .1, .2, ... as pandas does.
func uniqueNames(names []string) []string {
	// pandas' algorithm: a name seen k times before becomes name.k, and
	// so on while that is taken too.
	counts := map[string]int{}
	out := make([]string, len(names))
	for i, n := range names {
		if n == "" {
			n = "Unnamed: " + strconv.Itoa(i)
		}
		for k := counts[n]; k > 0; k = counts[n] {
			counts[n] = k + 1
			n += "." + strconv.Itoa(k)
		}
		counts[n]++
		out[i] = n
	}
	return out
}

type csvJob struct {
	c   *chunk
	res chan csvResult
}

// start runs the splitter and the workers.
func (s *csvSource) start(sp *splitter, tok *tokenizer, o options) {
	workers := min(max(runtime.GOMAXPROCS(0), 1), 8)
	s.order = make(chan chan csvResult, workers)
	jobs := make(chan csvJob)
	s.wg.Add(1 + workers)
	go func() {
		defer s.wg.Done()
		defer close(jobs)
		defer close(s.order)
		for {
			c, err := sp.next(o.batch, chunkBytes)
			if err == io.EOF {
				return
			}
			res := make(chan csvResult, 1)
			if err != nil {
				res <- csvResult{err: fmt.Errorf("%s: %w", s.name, err)}
			}
			select {
			case s.order <- res:
			case <-s.done:
				return
			}
			if err != nil {
				return
			}
			select {
			case jobs <- csvJob{c, res}:
			case <-s.done:
				return
			}
		}
	}()
	for w := 0; w < workers; w++ {
		go func() {
			defer s.wg.Done()
			t := &tokenizer{ncols: tok.ncols}
			b := &textBatch{}
			for j := range jobs {
				b.reset(t.ncols)
				_, _, terr := t.tokenize(j.c.data, 0, j.c.line, j.c.rows+1, b)
				if terr != nil {
					j.res <- csvResult{err: fmt.Errorf("%s: line %d: %s", s.name, terr.line, terr.msg)}
					continue
				}
				rec, cerr := convertText(s.schema, s.cols, b)
				if cerr != nil {
					j.res <- csvResult{err: describeConvError(s.name, s.cols, b, cerr, s.sample, "line")}
					continue
				}
				sp.recycle(j.c.data)
				j.res <- csvResult{rec: rec}
			}
		}()
	}
}

func (s *csvSource) Schema() *arrow.Schema { return s.schema }

func (s *csvSource) Next() (arrow.Record, error) {
	if s.err != nil {
		return nil, s.err
	}
	if s.first != nil {
		rec := s.first
		s.first = nil
		return rec, nil
	}
	res, ok := <-s.order
	if !ok {
		s.err = io.EOF
		return nil, io.EOF
	}
	r := <-res
	if r.err != nil {
		s.err = r.err
		return nil, r.err
	}
	return r.rec, nil
}

// Close stops the goroutines and releases the batches not handed out.
func (s *csvSource) Close() error {
	s.once.Do(func() {
		close(s.done)
		s.wg.Wait()
		if s.first != nil {
			s.first.Release()
			s.first = nil
		}
		for res := range s.order {
			select {
			case r := <-res:
				if r.rec != nil {
					r.rec.Release()
				}
			default: // never sent to a worker
			}
		}
		if s.err == nil {
			s.err = errors.New("source is closed")
		}
	})
	return nil
}
