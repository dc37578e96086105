package botpkg

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/fabricops/fabric/fabric/lib/budget"
	"github.com/fabricops/fabric/fabric/lib/starvalue"
	"go.starlark.net/lib/json"
	"go.starlark.net/lib/math"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

var (
	structBuiltin = starlark.NewBuiltin("struct", starlarkstruct.Make)
	jsonModule    = json.Module
	mathModule    = math.Module
)

// Call is one call of a bot.
type Call struct {
	// Bot is the bot's name in bots.yml.
	Bot string
	// In is the frame in hand as the bot gets it: the frame value of the
	// build that runs bots (a fabric/lib/starframe value); nil is an empty list.
	In starlark.Value
	// Params are the step's parameters, checked against the bot's
	// model_parameters (CheckParams).
	Params map[string]string
	// Config is the configuration of the source the call runs against,
	// its secret values included; nil when it runs with no source.
	Config map[string]any
	// Steps and Memory override the package's limits when not zero.
	Steps  uint64
	Memory int64
	// Print receives what the bot prints, secrets redacted (nil: dropped).
	Print func(msg string)
}

// Tag is how a pipeline calls a bot of the package: @namespace:bot.
func (p *Package) Tag(bot string) string { return "@" + p.Manifest.Extension.Namespace + ":" + bot }

// Run calls a bot in a fresh thread: the step budget, the context's
// cancellation, the value bound and the memory watch apply, and the http
// module reaches only the host and port of c.Config. It returns what the
// bot returned, for the caller to read as a frame (fabric/lib/starframe).
// Errors are one line naming the package, the bot and the file:line:col,
// with the values of the template's $secure keys redacted (see CallError).
func (p *Package) Run(ctx context.Context, c Call) (v starlark.Value, err error) {
	fn, ok := p.bots[c.Bot]
	if !ok {
		return nil, fmt.Errorf("%s: the package %s has no bot %s", p.Tag(c.Bot), p.Manifest.Extension.DefaultName, c.Bot)
	}
	bot, _ := p.Manifest.Bot(c.Bot)
	defer func() {
		if err != nil {
			err = p.CallError(c.Bot, c.Config, err)
		}
	}()
	if err := p.checkConfig(c.Config); err != nil {
		return nil, err
	}
	params, err := CheckParams(bot, c.Params)
	if err != nil {
		return nil, err
	}
	frame := c.In
	if frame == nil {
		frame = starlark.NewList(nil)
	}
	config, err := starvalue.ToStarlark(configMap(c.Config))
	if err != nil {
		return nil, fmt.Errorf("config: %v", err)
	}
	l := p.limit
	if c.Steps > 0 {
		l.Steps = c.Steps
	}
	if c.Memory > 0 {
		l.Memory = c.Memory
	}
	thread := newThread(ctx, p.Tag(c.Bot), l.Steps)
	secrets := p.Secrets(c.Config)
	thread.SetLocal(httpKey, newHTTPPolicy(c.Config, secrets))
	thread.Print = func(_ *starlark.Thread, msg string) {
		if c.Print != nil {
			c.Print(Redact(msg, secrets))
		}
	}
	stop := watchContext(ctx, thread)
	stopMem := watchMemory(thread, l.Memory)
	err = budget.Guard(func() error {
		var cerr error
		v, cerr = starlark.Call(thread, fn, starlark.Tuple{frame, params, config}, nil)
		return cerr
	})
	stopMem()
	stop()
	if err != nil {
		return nil, callError(ctx, thread, l, err)
	}
	return v, nil
}

// CallError is err of a call of bot with config as Run says it: one line
// naming the bot and the package, the values of config's $secure keys
// redacted.
func (p *Package) CallError(bot string, config map[string]any, err error) error {
	return errors.New(Redact(fmt.Sprintf("%s (package %s %s): %v", p.Tag(bot), p.Manifest.Extension.DefaultName, p.Manifest.Extension.Version, err), p.Secrets(config)))
}

// MaxRows is the bound on the rows a call of the package's bots returns.
func (p *Package) MaxRows() int { return p.limit.Rows }

// HasCheck reports whether the package defines check_credentials.
func (p *Package) HasCheck() bool { return p.check != nil }

// CheckCredentials checks a source's configuration: its $mandatory keys,
// then the package's check_credentials(config) when it has one, run as a
// bot is (its http reaching only the configured host). The check passes
// when it returns None or True; False, or a string saying why, fails it.
func (p *Package) CheckCredentials(ctx context.Context, config map[string]any) (err error) {
	secrets := p.Secrets(config)
	defer func() {
		if err != nil {
			err = errors.New(Redact(fmt.Sprintf("bot package %s %s: %v", p.Manifest.Extension.DefaultName, p.Manifest.Extension.Version, err), secrets))
		}
	}()
	if err := p.checkConfig(config); err != nil {
		return err
	}
	if p.check == nil {
		return nil
	}
	cfg, err := starvalue.ToStarlark(configMap(config))
	if err != nil {
		return fmt.Errorf("config: %v", err)
	}
	thread := newThread(ctx, p.Manifest.Extension.Namespace+":"+CheckName, p.limit.Steps)
	thread.SetLocal(httpKey, newHTTPPolicy(config, secrets))
	stop := watchContext(ctx, thread)
	v, err := starlark.Call(thread, p.check, starlark.Tuple{cfg}, nil)
	stop()
	if err != nil {
		return callError(ctx, thread, p.limit, err)
	}
	switch x := v.(type) {
	case starlark.NoneType:
		return nil
	case starlark.Bool:
		if x {
			return nil
		}
		return errors.New("the credential check failed")
	case starlark.String:
		return fmt.Errorf("the credential check failed: %s", string(x))
	}
	return fmt.Errorf("%s returned a %s, not None, a bool or a reason", CheckName, v.Type())
}

// Secrets are the values of config's $secure keys: what no output,
// trace or error of a call may show.
func (p *Package) Secrets(config map[string]any) []string {
	var out []string
	for _, k := range p.Template.Secure {
		if s := fmt.Sprint(config[k]); config[k] != nil && s != "" {
			out = append(out, s)
		}
	}
	return out
}

// checkConfig requires the template's $mandatory keys, unless the call
// has no source and the template has none.
func (p *Package) checkConfig(config map[string]any) error {
	for _, k := range p.Template.Mandatory {
		if v, ok := config[k]; !ok || v == nil || fmt.Sprint(v) == "" {
			if config == nil {
				return fmt.Errorf("the package's configuration requires %s: name a source", k)
			}
			return fmt.Errorf("the source's configuration has no %s, which the package requires", k)
		}
	}
	return nil
}

func configMap(c map[string]any) map[string]any {
	if c == nil {
		return map[string]any{}
	}
	return c
}

// Redact replaces each secret in s by "***".
func Redact(s string, secrets []string) string {
	for _, x := range secrets {
		if x != "" {
			s = strings.ReplaceAll(s, x, "***")
		}
	}
	return s
}

func newThread(ctx context.Context, name string, steps uint64) *starlark.Thread {
	t := &starlark.Thread{Name: name, Load: func(*starlark.Thread, string) (starlark.StringDict, error) {
		return nil, errors.New("a bot loads its modules when its package loads, not while it runs")
	}}
	t.SetMaxExecutionSteps(steps)
	t.SetLocal(ctxKey, ctx)
	return t
}

// watchContext cancels thread when ctx ends; the returned func stops
// the watch.
func watchContext(ctx context.Context, thread *starlark.Thread) func() {
	stop := context.AfterFunc(ctx, func() { thread.Cancel(ctxReason(ctx)) })
	return func() { stop() }
}

func ctxReason(ctx context.Context) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return "the time limit was reached"
	}
	if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) {
		return c.Error()
	}
	return "the call was cancelled"
}

// HeapReader returns the bytes of the heap's objects and of its live heap
// (as of the last collection). By default it reads runtime.MemStats,
// which stops the world for a moment; the pods set it to read
// runtime/metrics, which does not, and which the shell does not link (its
// package start costs every client start 0.1 ms).
var HeapReader = func() (objects, live int64) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	// Right after a collection (watchMemory forces one before it looks
	// at live), the objects allocated are the live heap.
	return int64(ms.HeapAlloc), int64(ms.HeapAlloc)
}

// memoryPoll is how often the memory watch looks at the heap.
const memoryPoll = 5 * time.Millisecond

// watchMemory cancels thread when the process's heap grows by more than
// limit during the call. The heap is the process's, not the call's: it
// is read every memoryPoll, and when it is over, a collection is forced
// and the live heap read again, so garbage is not counted; what other
// calls of the process grow by at the same moment is counted too, so the
// watch is a bound on the process's growth during the call, not an
// account of the call's own values.
func watchMemory(thread *starlark.Thread, limit int64) func() {
	if limit <= 0 {
		return func() {}
	}
	read := HeapReader
	base, _ := read()
	trigger := base + limit
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(memoryPoll)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			if objects, _ := read(); objects <= trigger {
				continue
			}
			runtime.GC()
			objects, live := read()
			if live-base > limit {
				thread.Cancel(fmt.Sprintf("the memory limit of %s was reached", bytesText(limit)))
				return
			}
			// Garbage, not held: the next collection is forced only once
			// the heap has grown again by half the limit.
			trigger = max(base+limit, objects+limit/2)
		}
	}()
	return func() { close(done); wg.Wait() }
}

func bytesText(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// callError is err of a call as one line: a limit named, or the message
// at the innermost position in the package's files.
func callError(ctx context.Context, thread *starlark.Thread, l Limits, err error) error {
	var ee *starlark.EvalError
	if !errors.As(err, &ee) {
		return err
	}
	msg := ee.Msg
	if strings.HasPrefix(msg, "Starlark computation cancelled: ") {
		reason := strings.TrimPrefix(msg, "Starlark computation cancelled: ")
		if reason == "too many steps" {
			reason = fmt.Sprintf("the step limit of %d steps was reached", l.Steps)
		}
		msg = reason
	}
	for i := len(ee.CallStack) - 1; i >= 0; i-- {
		fr := ee.CallStack[i]
		if fr.Pos.IsValid() && fr.Pos.Filename() != "<builtin>" {
			return fmt.Errorf("%s: %s", fr.Pos, msg)
		}
	}
	return errors.New(msg)
}
