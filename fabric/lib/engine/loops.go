package engine

import (
	"fmt"
	"maps"
	"strconv"
	"time"

	"github.com/fabricops/fabric/fabric/lib/frame"
)

func init() {
	register(
		&bot{control: true, doc: BotDoc{Tag: tagNewBlock,
			Description: "Ends the block and starts a new one with an empty frame. The output of a pipeline is the final frame of its last block."}},
		&bot{control: true, doc: BotDoc{Tag: tagSimpleLoop,
			Description: "Runs the rest of the block (up to the next @c:new-block, or the @exec:end-if of an enclosing conditional) once per value of loop_var, from the frame the loop received, with $loop_var (or $<var>) replaced by the value in later steps. The outputs of the iterations are concatenated.",
			Params: []ParamDoc{
				p("loop_var", "list", true, "", "the values, comma-separated"),
				p("var", "string", false, "loop_var", "the name of the variable"),
			}}},
		&bot{control: true, check: checkCountLoop, doc: BotDoc{Tag: tagCountLoop,
			Description: "Runs the rest of the block once per count from start to end inclusive, by increment, with $count (or $<var>) replaced by the count. The outputs of the iterations are concatenated.",
			Params: []ParamDoc{
				p("start", "int", false, "1", "the first count"),
				p("end", "int", true, "", "the last count (inclusive)"),
				p("increment", "int", false, "1", "the step between counts (negative to count down; not 0)"),
				p("var", "string", false, "count", "the name of the variable"),
			}}},
		&bot{control: true, doc: BotDoc{Tag: tagDataLoop,
			Description: "Runs the rest of the block once per row of a dataset, with $<column> replaced by the row's value (as text; null is empty) for each of the columns. The outputs of the iterations are concatenated.",
			Params: []ParamDoc{
				p("dataset", "string", true, "", "the dataset to iterate over (temp- datasets included)"),
				p("columns", "list", true, "", "the columns to make variables of"),
			}}},
		&bot{control: true, check: checkTimedLoop, doc: BotDoc{Tag: tagTimedLoop,
			Description: "Runs the rest of the block every interval seconds (an iteration starts at once, the next interval seconds after the previous one started, or as soon as it ends when it overran) until count iterations have run, or no further iteration would start within duration seconds, or the job is cancelled. $iteration is the 1-based iteration. Its output is the last iteration's frame.",
			Params: []ParamDoc{
				p("interval", "number", true, "", "seconds between the starts of iterations (> 0)"),
				p("count", "int", false, "", "the number of iterations (unlimited when neither count nor duration is given)"),
				p("duration", "number", false, "", "seconds after which no iteration starts"),
			}}},
		&bot{control: true, star: true, doc: BotDoc{Tag: tagIfShape,
			Description: "Runs the steps up to the matching @exec:end-if only when its CFXQL query matches the dict {num_rows, num_columns} of the frame in hand; otherwise the frame passes through (the steps are traced as skipped).",
			Params:      []ParamDoc{p("query", "cfxql", true, "", "a condition over num_rows and num_columns, such as 'num_rows > 0'")}}},
		&bot{control: true, doc: BotDoc{Tag: tagEndIf,
			Description: "Ends the conditional opened by the last unclosed *exec:if-shape."}},
	)
}

func checkCountLoop(p *params) error {
	if p.int("increment") == 0 {
		return badParam("increment", "must not be 0")
	}
	return nil
}

func checkTimedLoop(p *params) error {
	if p.float("interval") <= 0 {
		return badParam("interval", "must be more than 0 seconds, not '%s'", p.str("interval"))
	}
	if p.has("count") && p.int("count") < 1 {
		return badParam("count", "must be at least 1, not '%s'", p.str("count"))
	}
	if p.has("duration") && p.float("duration") <= 0 {
		return badParam("duration", "must be more than 0 seconds, not '%s'", p.str("duration"))
	}
	return nil
}

func with(vars map[string]string, kv ...string) map[string]string {
	m := make(map[string]string, len(vars)+len(kv)/2)
	maps.Copy(m, vars)
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

// loop runs a loop node: its body once per iteration, from the frame the
// loop received.
func (r *run) loop(n *node, in *frame.Frame, vars map[string]string) (*frame.Frame, error) {
	start := time.Now()
	r.trace(n.step, StatusStarted, in, 0, "")
	p, err := r.args(n, vars)
	if err != nil {
		return nil, r.fail(n.step, start, err)
	}
	// The outputs gathered so far are held by the run (charged to its
	// memory) and counted against its row limit as they come, so that a
	// loop of a million iterations stops at its limit, not after.
	var outs []*frame.Frame
	var held, rows int64
	defer func() { r.release(held) }()
	gathered := func() {
		r.release(held)
		outs, held, rows = outs[:0], 0, 0
	}
	iterations := 0
	body := func(v map[string]string) error {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		iterations++
		out, err := r.seq(n.body, in, v)
		if err != nil {
			return err
		}
		if rows += int64(out.NumRows()); r.e.Limits.MaxRows > 0 && rows > r.e.Limits.MaxRows {
			return r.overRows(rows)
		}
		cost, err := r.hold(out)
		if err != nil {
			return err
		}
		held += cost
		outs = append(outs, out)
		return nil
	}
	switch n.bot.doc.Tag {
	case tagSimpleLoop:
		name := p.str("var")
		for _, v := range p.cols("loop_var") {
			if err = body(with(vars, name, v)); err != nil {
				break
			}
		}
	case tagCountLoop:
		name, end, inc := p.str("var"), p.int("end"), p.int("increment")
		for c := p.int("start"); inc > 0 && c <= end || inc < 0 && c >= end; c += inc {
			if err = body(with(vars, name, strconv.Itoa(c))); err != nil {
				break
			}
		}
	case tagDataLoop:
		err = r.dataLoop(p, vars, body)
	case tagTimedLoop:
		err = r.timedLoop(p, vars, func(v map[string]string) error {
			gathered()
			return body(v)
		})
	}
	if err != nil {
		if _, ok := err.(*StepError); !ok {
			return nil, r.fail(n.step, start, err)
		}
		r.trace(n.step, StatusFailed, nil, time.Since(start), err.Error())
		return nil, err
	}
	out, err := concat(outs...)
	if err != nil {
		return nil, r.fail(n.step, start, err)
	}
	gathered()
	r.trace(n.step, StatusCompleted, out, time.Since(start), fmt.Sprintf("%d iterations", iterations))
	return out, nil
}

func (r *run) dataLoop(p *params, vars map[string]string, body func(map[string]string) error) error {
	ds, err := r.load("dataset", p.str("dataset"))
	if err != nil {
		return err
	}
	cols := p.cols("columns")
	idx := colIndex(ds)
	pos := make([]int, len(cols))
	for i, c := range cols {
		j, ok := idx[c]
		if !ok {
			return missingColumn("columns", c, ds)
		}
		pos[i] = j
	}
	for i := 0; i < ds.NumRows(); i++ {
		row := ds.Row(i)
		kv := make([]string, 0, 2*len(cols))
		for k, c := range cols {
			kv = append(kv, c, str(row[pos[k]]))
		}
		if err := body(with(vars, kv...)); err != nil {
			return err
		}
	}
	return nil
}

func (r *run) timedLoop(p *params, vars map[string]string, body func(map[string]string) error) error {
	interval := time.Duration(p.float("interval") * float64(time.Second))
	count := -1
	if p.has("count") {
		count = p.int("count")
	}
	var duration time.Duration
	if p.has("duration") {
		duration = time.Duration(p.float("duration") * float64(time.Second))
	}
	t0 := time.Now()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for k := 1; ; k++ {
		if err := body(with(vars, "iteration", strconv.Itoa(k))); err != nil {
			return err
		}
		if count > 0 && k >= count {
			return nil
		}
		next := time.Duration(k) * interval
		if duration > 0 && (next >= duration || time.Since(t0) >= duration) {
			return nil
		}
		timer.Reset(time.Until(t0.Add(next)))
		select {
		case <-r.ctx.Done():
			return r.ctx.Err()
		case <-timer.C:
		}
	}
}
