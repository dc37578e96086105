package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/lib/budget"
	"github.com/fabricops/fabric/fabric/lib/cfxql"
	"github.com/fabricops/fabric/fabric/lib/frame"
)

// Step is one step of a pipeline's data.sequence: a tag such as
// "@dm:addrow", "*dm:filter", "@c:new-block" or "*exec:if-shape", the
// query after the tag, and a comment.
type Step struct {
	Tag     string `json:"tag"`
	Query   string `json:"query"`
	Comment string `json:"comment,omitempty"`
}

// The statuses of a Trace.
const (
	StatusStarted   = "started"
	StatusCompleted = "completed"
	StatusFailed    = "failed"
	StatusSkipped   = "skipped"
)

// Trace reports the progress of one step: started, then completed or
// failed, or skipped (the steps of a conditional whose condition is
// false). Step is the 1-based step number and Block the 1-based block;
// Rows and Columns describe the frame the step produced (its input for
// "started" and "skipped"). Steps in a loop are traced once per iteration.
type Trace struct {
	JobID    string
	Step     int
	Tag      string
	Status   string
	Rows     int
	Columns  int
	Duration time.Duration
	Message  string
	Block    int
	Time     time.Time
}

// Engine runs pipelines. Its zero value runs pipelines that need no
// Store; it may run several pipelines at once.
type Engine struct {
	// Store reaches datasets, objects and files; bots that need it fail
	// when it is nil.
	Store Store
	// Trace, when set, receives the progress of every step, in order, on
	// the goroutine of Run.
	Trace func(Trace)
	// Now is the clock of time_now and of relative times in CFXQL
	// queries (time.Now when nil).
	Now func() time.Time
	// JobID is copied into every Trace.
	JobID string
	// Limits bound the tables a run may hold (zero fields: no bound).
	Limits Limits
	// Pool, when set, is the memory the runs of several engines share
	// (a worker's jobs): what a run holds is taken from it as well.
	Pool *budget.Pool
	// Extensions are bots added to the built-in ones (an extension with
	// the tag of a built-in bot replaces it, but for the control tags of
	// blocks, loops and conditionals).
	Extensions []Extension
}

func (e *Engine) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

// run is the state of one Run.
type run struct {
	e     *Engine
	ctx   context.Context
	b     *budget.Budget
	steps []Step
	temps map[string]*frame.Frame
	block int
	// at is the step running (0-based), for what its bot prints.
	at int
}

// Run runs the steps and returns the final frame of the last block: the
// job's output (an empty frame, without columns, when the last block is
// empty or ends in @dm:empty). It first verifies every step (see Verify) and runs
// nothing when one is wrong. A failing step stops the run with a
// *StepError. When ctx is done the run stops between steps, between loop
// iterations and inside timed-loop waits, and Run returns ctx.Err().
func (e *Engine) Run(ctx context.Context, steps []Step) (*frame.Frame, error) {
	run, err := e.Prepare(steps)
	if err != nil {
		return nil, err
	}
	return run(ctx)
}

// Prepare verifies the steps as Verify does and returns their run, which
// does what Run does without verifying them again: for a caller that
// answers whether a pipeline is sound before it runs it.
func (e *Engine) Prepare(steps []Step) (func(context.Context) (*frame.Frame, error), error) {
	steps = normalize(steps)
	pl, errs := e.compile(steps)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return func(ctx context.Context) (*frame.Frame, error) { return e.execute(ctx, steps, pl) }, nil
}

// execute runs a compiled plan.
func (e *Engine) execute(ctx context.Context, steps []Step, pl *plan) (*frame.Frame, error) {
	b := e.newBudget(ctx)
	defer b.Close()
	r := &run{e: e, ctx: b.Context(), b: b, steps: steps, temps: map[string]*frame.Frame{}}
	defer func() {
		for _, t := range r.temps {
			r.release(heldBytes(t))
		}
		r.temps = nil
	}()
	var out *frame.Frame
	for b, nodes := range pl.blocks {
		r.block = b + 1
		if b > 0 {
			i := pl.starts[b]
			r.trace(i, StatusStarted, nil, 0, "")
			r.trace(i, StatusCompleted, emptyFrame(), 0, "")
		}
		var err error
		out, err = r.seq(nodes, emptyFrame(), nil)
		if err != nil {
			return nil, err
		}
	}
	if out == nil {
		out = emptyFrame()
	}
	return out, nil
}

// normalize trims the tags of steps and moves a query written in the tag
// ("@dm:head n = 5" with no query) to the query.
func normalize(steps []Step) []Step {
	out := make([]Step, len(steps))
	for i, st := range steps {
		st.Tag = strings.TrimSpace(st.Tag)
		if j := strings.IndexAny(st.Tag, " \t\r\n"); j >= 0 {
			st.Query = strings.TrimSpace(st.Tag[j:] + " " + st.Query)
			st.Tag = st.Tag[:j]
		}
		out[i] = st
	}
	return out
}

// trace reports a step's progress.
func (r *run) trace(i int, status string, f *frame.Frame, d time.Duration, msg string) {
	if r.e.Trace == nil {
		return
	}
	t := Trace{JobID: r.e.JobID, Step: i + 1, Tag: r.steps[i].Tag, Status: status,
		Duration: d, Message: msg, Block: r.block, Time: r.e.now()}
	if f != nil {
		t.Rows, t.Columns = f.NumRows(), f.NumCols()
	}
	r.e.Trace(t)
}

// fail turns an error of step i into a *StepError (or ctx.Err() when the
// run was cancelled) and traces it.
func (r *run) fail(i int, start time.Time, err error) error {
	if cerr := r.ctx.Err(); cerr != nil {
		r.trace(i, StatusFailed, nil, time.Since(start), cerr.Error())
		return cerr
	}
	var se *StepError
	if !errors.As(err, &se) {
		se = stepError(i, r.steps[i].Tag, err)
	}
	if se.Step == i+1 {
		r.trace(i, StatusFailed, nil, time.Since(start), se.Err.Error())
	}
	return se
}

func stepError(i int, tag string, err error) *StepError {
	se := &StepError{Step: i + 1, Tag: tag, Err: err}
	var pe *paramError
	if errors.As(err, &pe) {
		se.Param = pe.param
	}
	return se
}

// seq runs nodes from the frame in, with the loop variables vars.
func (r *run) seq(nodes []*node, in *frame.Frame, vars map[string]string) (*frame.Frame, error) {
	f := in
	for i := 0; i < len(nodes); i++ {
		n := nodes[i]
		if err := r.ctx.Err(); err != nil {
			return nil, err
		}
		out, k, err := r.fuse(nodes[i:], vars)
		if err != nil {
			return nil, err
		}
		if k > 0 {
			f, i = out, i+k-1
			continue
		}
		switch n.kind {
		case nodeBot:
			f, err = r.step(n, f, vars)
		case nodeIf:
			f, err = r.cond(n, f, vars)
		case nodeLoop:
			f, err = r.loop(n, f, vars)
		}
		if err != nil {
			return nil, err
		}
	}
	return f, nil
}

// args parses, substitutes and checks the parameters of step n.
func (r *run) args(n *node, vars map[string]string) (*params, error) {
	p, err := newParams(n.bot, r.steps[n.step].Query)
	if err != nil {
		return nil, err
	}
	p.substitute(vars)
	if err := p.validate(false); err != nil {
		return nil, err
	}
	return p, nil
}

// step runs a bot.
func (r *run) step(n *node, in *frame.Frame, vars map[string]string) (*frame.Frame, error) {
	start := time.Now()
	r.trace(n.step, StatusStarted, in, 0, "")
	p, err := r.args(n, vars)
	if err != nil {
		return nil, r.fail(n.step, start, err)
	}
	r.at = n.step
	out, err := n.bot.run(r, in, p)
	if err != nil {
		return nil, r.fail(n.step, start, err)
	}
	if out == nil {
		out = emptyFrame()
	}
	if err := r.within(out); err != nil {
		return nil, r.fail(n.step, start, err)
	}
	r.trace(n.step, StatusCompleted, out, time.Since(start), "")
	return out, nil
}

// cond runs a conditional: its body when the condition matches the shape
// of the frame in hand.
func (r *run) cond(n *node, in *frame.Frame, vars map[string]string) (*frame.Frame, error) {
	start := time.Now()
	r.trace(n.step, StatusStarted, in, 0, "")
	p, err := r.args(n, vars)
	if err != nil {
		return nil, r.fail(n.step, start, err)
	}
	q, err := cfxql.Parse(p.query)
	if err != nil {
		return nil, r.fail(n.step, start, fmt.Errorf("invalid query: %w", err))
	}
	shape := map[string]any{"num_rows": int64(in.NumRows()), "num_columns": int64(in.NumCols())}
	ok, err := q.WithNow(r.e.now()).Match(shape)
	if err != nil {
		return nil, r.fail(n.step, start, err)
	}
	r.trace(n.step, StatusCompleted, in, time.Since(start), fmt.Sprintf("condition is %v", ok))
	out := in
	if ok {
		if out, err = r.seq(n.body, in, vars); err != nil {
			return nil, err
		}
	} else {
		r.skip(n.body, in)
	}
	r.trace(n.end, StatusStarted, out, 0, "")
	r.trace(n.end, StatusCompleted, out, 0, "")
	return out, nil
}

// skip traces the steps of nodes as skipped.
func (r *run) skip(nodes []*node, in *frame.Frame) {
	for _, n := range nodes {
		r.trace(n.step, StatusSkipped, in, 0, "")
		r.skip(n.body, in)
		if n.kind == nodeIf {
			r.trace(n.end, StatusSkipped, in, 0, "")
		}
	}
}

// Verify checks the steps without running them: every tag names a known
// bot, parameters parse and are known, present when required and valid
// (values holding loop variables are checked when the step runs), the
// queries of "*" bots are valid CFXQL, and blocks, loops and conditionals
// are well formed. The error (several are joined) names the step
// (1-based), its tag and the parameter at fault:
//
//	step 3 (@dm:sort): parameter 'order' must be 'asc' or 'desc', not 'up'
func (e *Engine) Verify(steps []Step) error {
	_, errs := e.compile(normalize(steps))
	return errors.Join(errs...)
}
