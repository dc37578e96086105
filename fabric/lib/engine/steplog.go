package engine

import (
	"context"
	"sync"
	"unicode/utf8"
)

// StatusLog is the status of a trace of what a step's bot printed (its
// Message), between the step's started and its end.
const StatusLog = "log"

// The bounds of what a step may print: MaxLogLines traces a step (then
// one saying the rest was dropped), each message cut to MaxLogLine bytes.
const (
	MaxLogLines = 100
	MaxLogLine  = 1000
)

type logKey struct{}

// stepLog traces the lines one call of a step prints.
type stepLog struct {
	mu    sync.Mutex
	r     *run
	step  int
	lines int
}

// Log traces msg as a line the bot of the step running under ctx printed
// (ctx is the one an Extension's Run gets); elsewhere it does nothing.
// A step's lines are bounded (MaxLogLines, MaxLogLine).
func Log(ctx context.Context, msg string) {
	l, ok := ctx.Value(logKey{}).(*stepLog)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines++
	switch {
	case l.lines > MaxLogLines+1:
		return
	case l.lines == MaxLogLines+1:
		msg = "(the step printed more: dropped)"
	case len(msg) > MaxLogLine:
		cut := MaxLogLine
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + " (cut)"
	}
	l.r.trace(l.step, StatusLog, nil, 0, msg)
}

// withLog is ctx of a call of step i, for Log.
func (r *run) withLog(ctx context.Context, i int) context.Context {
	return context.WithValue(ctx, logKey{}, &stepLog{r: r, step: i})
}
