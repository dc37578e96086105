package viewer

import (
	"context"
	"errors"
	"io"

	tea "github.com/charmbracelet/bubbletea"
)

// Run shows t full-screen on the terminal (in, out) until q or Ctrl-C,
// or until ctx ends. The terminal is restored however the viewer ends:
// q, Ctrl-C, SIGTERM, ctx, an error or a panic (bubbletea restores it
// on each). Run closes t.
func Run(ctx context.Context, t Table, in io.Reader, out io.Writer, o Options) error {
	defer t.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // stops the reads and jobs under way
	m := newModel(ctx, t, o)
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(out), tea.WithAltScreen())
	_, err := p.Run()
	switch {
	case errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil:
		return context.Cause(ctx)
	case errors.Is(err, tea.ErrInterrupted):
		return nil
	}
	return err
}
