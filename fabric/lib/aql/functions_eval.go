package aql

import (
	"fmt"
	"math"
	"time"
)

// evalFunctions are the functions that need the query's evaluator: its
// budget, to charge what they make before they make it, or to stop when
// the query must.
var evalFunctions = map[string]func(e *evaluator, args []any) (any, error){
	"RANGE":    (*evaluator).rangeFunc,
	"SLEEP":    (*evaluator).sleep,
	"DATE_NOW": func(*evaluator, []any) (any, error) { return float64(time.Now().UnixMilli()), nil },
}

// rangeFunc is RANGE(start, stop[, step]): the numbers from start to stop
// by step (default 1, or -1 when stop is below start); null for a step
// of 0 or one going away from stop.
func (e *evaluator) rangeFunc(args []any) (any, error) {
	if len(args) < 2 || len(args) > 3 {
		return nil, &QueryError{1541, "invalid number of arguments for function 'RANGE()'"}
	}
	start, stop := number(args[0]), number(args[1])
	step := 1.0
	if stop < start {
		step = -1
	}
	if len(args) == 3 && args[2] != nil {
		step = number(args[2])
	}
	if step == 0 || math.IsNaN(step) || (stop-start)*step < 0 {
		return nil, nil
	}
	n := math.Floor((stop-start)/step) + 1
	if math.IsNaN(n) || math.IsInf(n, 0) || n > maxRange {
		return nil, &QueryError{ErrResourceLimit, fmt.Sprintf("resource limit exceeded: a range of more than %d values", maxRange)}
	}
	count := int(n)
	// The values are charged before they are made.
	if err := e.grow(listCost(count) + int64(count)*floatSize); err != nil {
		return nil, err
	}
	out := make([]any, 0, count)
	for i := 0; i < count; i++ {
		if err := e.step(); err != nil {
			return nil, err
		}
		out = append(out, start+float64(i)*step)
	}
	return out, nil
}

// sleep is SLEEP(seconds): it waits, or stops with the query's error when
// the query must stop (its run time is over, it was killed).
func (e *evaluator) sleep(args []any) (any, error) {
	secs, ok := arg(args, 0).(float64)
	if !ok || secs < 0 || math.IsNaN(secs) {
		return nil, nil
	}
	d := time.Duration(min(secs, float64(math.MaxInt64/int64(time.Second))) * float64(time.Second))
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil, nil
	case <-e.b.Context().Done():
		return nil, e.b.Err()
	}
}
