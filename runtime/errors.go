package runtime

import (
	"errors"
	"os"
	"os/signal"
	"strings"

	"github.com/fabricops/fabric/runtime/command"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Exit codes of the shell.
const (
	ExitOK          = 0
	ExitFailure     = 1
	ExitUsage       = 2
	ExitInterrupted = 130
)

// IsExit reports whether err comes from sys.exit() or exit().
func IsExit(err error) bool {
	var e *host.ExitError
	return errors.As(err, &e)
}

// IsCancelled reports whether thread was cancelled (Ctrl-C).
func IsCancelled(thread *starlark.Thread) bool {
	return thread != nil && thread.Local(cancelledKey) == true
}

const cancelledKey = "fabric.cancelled"

// Cancel interrupts a running thread; the evaluation fails with
// "interrupted" at its next step.
func Cancel(thread *starlark.Thread) {
	thread.SetLocal(cancelledKey, true)
	thread.Cancel("interrupted")
	host.Interrupt(thread)
}

// ExitCode maps an error from running a script or command to the shell's
// exit code.
func ExitCode(thread *starlark.Thread, err error) int {
	var exit *host.ExitError
	var usage *command.UsageError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &exit):
		return exit.Code
	case errors.As(err, &usage):
		return ExitUsage
	case IsCancelled(thread):
		return ExitInterrupted
	}
	return ExitFailure
}

// Message returns the one-line message of an error: what went wrong and
// which call it was, without the backtrace. fail("x") gives "x"; a builtin's
// error gives "name: message" unless the message names the call already.
func Message(err error) string {
	var usage *command.UsageError
	if errors.As(err, &usage) {
		return usage.Msg
	}
	var eval *starlark.EvalError
	if errors.As(err, &eval) {
		msg := eval.Msg
		if s, ok := strings.CutPrefix(msg, "fail: "); ok {
			return s
		}
		if stack := eval.CallStack; len(stack) > 0 {
			fn := stack[len(stack)-1].Name
			if !stack[len(stack)-1].Pos.IsValid() && fn != "fail" && !strings.HasPrefix(msg, fn) && !strings.HasPrefix(fn, "<") {
				return fn + ": " + msg
			}
		}
		return msg
	}
	return err.Error()
}

// CommandMessage is Message for a failure of the command the user typed
// (name, "dataset delete"): it names that command, not the builtin its
// script happened to call ("dataset.meta"). A script's own fail() message
// is left as the script wrote it.
func CommandMessage(err error, name string) string {
	var eval *starlark.EvalError
	if !errors.As(err, &eval) || strings.HasPrefix(eval.Msg, "fail: ") {
		return Message(err)
	}
	msg := eval.Msg
	if stack := eval.CallStack; len(stack) > 0 {
		if top := stack[len(stack)-1]; !top.Pos.IsValid() || top.Pos.Filename() == "<builtin>" {
			msg = strings.TrimPrefix(msg, top.Name+": ")
		}
	}
	if strings.HasPrefix(msg, name+": ") {
		return msg
	}
	return name + ": " + msg
}

// Backtrace renders an error with the file:line:col of every frame, as the
// shell prints script failures.
func Backtrace(err error) string {
	var eval *starlark.EvalError
	var syn syntax.Error
	var list resolve.ErrorList
	switch {
	case errors.As(err, &eval):
		bt := strings.Replace(eval.Backtrace(), "Error in fail: fail: ", "Error: ", 1)
		if stack := eval.CallStack; len(stack) > 0 {
			// A builtin's message names the call already: say it once.
			fn := stack[len(stack)-1].Name
			bt = strings.Replace(bt, "Error in "+fn+": "+fn+": ", "Error in "+fn+": ", 1)
		}
		return bt
	case errors.As(err, &syn):
		return syn.Pos.String() + ": " + syn.Msg
	case errors.As(err, &list):
		var lines []string
		for _, e := range list {
			lines = append(lines, e.Pos.String()+": "+e.Msg)
		}
		return strings.Join(lines, "\n")
	}
	return err.Error()
}

// CancelOnInterrupt cancels thread when Ctrl-C arrives on ch (nil: the
// process's SIGINT) until the returned stop is called.
func CancelOnInterrupt(thread *starlark.Thread, ch <-chan os.Signal) (stop func()) {
	var sig chan os.Signal
	if ch == nil {
		sig = make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt)
		ch = sig
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ch:
			Cancel(thread)
		case <-done:
		}
	}()
	return func() {
		if sig != nil {
			signal.Stop(sig)
		}
		close(done)
	}
}
