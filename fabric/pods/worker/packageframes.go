package worker

import (
	"context"
	"fmt"

	"github.com/fabricops/fabric/fabric/lib/botpkg"
	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/fabricops/fabric/fabric/lib/starframe"
)

// A bot of a package gets the frame in hand as the Starlark frame value
// the shell's workflows see (fabric/lib/starframe, without the shell's
// file methods), sharing the job's Arrow record batches, and returns a
// frame or a list of dicts.

// botFrames is the kit of bots' frames: reads bounded by the call's
// context, and no method that reaches the host (no write, no to_csv).
var botFrames = &starframe.Kit{Context: botpkg.Context}

// runBot calls bot c.Bot of p with in as its frame (nil: an empty one,
// as at the start of a block; c.In is ignored) and reads what it returns
// as a frame: a frame, a list of dicts or None, within the package's row
// bound. The values of the source's $secure keys are redacted from the
// string cells of the result, as from errors.
func runBot(ctx context.Context, p *botpkg.Package, c botpkg.Call, in *frame.Frame) (*frame.Frame, error) {
	if in == nil {
		var err error
		if in, err = frame.FromRows(nil, nil); err != nil {
			return nil, err
		}
	}
	c.In = botFrames.New(in)
	v, err := p.Run(ctx, c)
	if err != nil {
		return nil, err
	}
	out, err := starframe.FromValue(ctx, v, p.MaxRows())
	if err != nil {
		return nil, p.CallError(c.Bot, c.Config, fmt.Errorf("the bot returned %v", err))
	}
	if secrets := p.Secrets(c.Config); out.ContainsAny(secrets) {
		if out, err = redacted(out, secrets); err != nil {
			return nil, p.CallError(c.Bot, c.Config, err)
		}
	}
	return out, nil
}

// redacted is f with every secret in its string cells replaced by "***".
func redacted(f *frame.Frame, secrets []string) (*frame.Frame, error) {
	rows := make([][]any, f.NumRows())
	for i := range rows {
		row := f.Row(i)
		for j, v := range row {
			if s, ok := v.(string); ok {
				row[j] = botpkg.Redact(s, secrets)
			}
		}
		rows[i] = row
	}
	return frame.FromRows(f.Columns(), rows)
}
