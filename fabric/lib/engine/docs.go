package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/fabricops/fabric/fabric/lib/frame"
)

// BotDoc documents a bot: its tag as written in a step ("@dm:head",
// "*dm:filter"), what it does and its parameters.
type BotDoc struct {
	Tag         string
	Description string
	Params      []ParamDoc
	// Streams is true for a bot that runs batch by batch: its output for
	// a table is its outputs for the table's batches, in order (a head
	// stops reading once it has its rows). After a recall, the engine
	// runs such steps as the dataset's batches are read, so the run holds
	// their result and a few batches, never the whole dataset. The other
	// bots need the whole table (sort, dedup, tail, save, ...).
	Streams bool `json:",omitempty"`
}

// ParamDoc documents a parameter of a bot. Type is one of string, int,
// number, bool (yes/no, true/false), list (comma-separated), regex,
// choice (one of Choices), expr (a Starlark expression), cfxql (a CFXQL
// query: the whole query of a "*" bot, named "query"). Default is the value
// used when the parameter is not given ("" for none). A parameter named
// "<column>" stands for any name: the bot takes one parameter per column.
type ParamDoc struct {
	Name        string
	Type        string
	Required    bool
	Default     string
	Description string
	Choices     []string
}

// String renders the doc as a help text: the tag, the description and one
// line per parameter.
func (d BotDoc) String() string {
	var b strings.Builder
	stream := ""
	if d.Streams {
		stream = " (streams: runs batch by batch)"
	}
	fmt.Fprintf(&b, "%s%s\n    %s\n", d.Tag, stream, d.Description)
	for _, p := range d.Params {
		ty := p.Type
		if len(p.Choices) > 0 {
			ty = strings.Join(p.Choices, "|")
		}
		fmt.Fprintf(&b, "    %s (%s", p.Name, ty)
		if p.Required {
			b.WriteString(", required")
		}
		if p.Default != "" {
			fmt.Fprintf(&b, ", default %s", p.Default)
		}
		fmt.Fprintf(&b, "): %s\n", p.Description)
	}
	return b.String()
}

// BotFunc runs a bot over the frame in hand. params are the parameters of
// an "@" bot (botquery.Parse) with loop variables substituted; a "*" bot gets
// its query as params["query"].
type BotFunc func(ctx context.Context, in *frame.Frame, params map[string]string) (*frame.Frame, error)

// Extension is a bot the engine's user provides (for example one that
// writes to a stream), added to the built-in bots by Engine.Extensions.
// Its Doc.Tag names it ("@rn:write-stream") and Doc.Params are checked as
// those of built-in bots are.
type Extension struct {
	Doc BotDoc
	Run BotFunc
}

// bot is a built-in bot.
type bot struct {
	doc BotDoc
	// star: the query is CFXQL rather than parameters.
	star bool
	// free: the bot takes any parameter name (ParamDoc "<column>").
	free bool
	// control: handled by the run loop (blocks, loops, conditionals).
	control bool
	// check validates the parameters beyond their documented types.
	check func(p *params) error
	// run runs the bot.
	run func(r *run, in *frame.Frame, p *params) (*frame.Frame, error)
}

// registry holds the built-in bots by tag.
var registry = map[string]*bot{}

// register adds bots to the registry; the bot files call it from init.
func register(bs ...*bot) {
	for _, b := range bs {
		if _, dup := registry[b.doc.Tag]; dup {
			panic("engine: bot registered twice: " + b.doc.Tag)
		}
		registry[b.doc.Tag] = b
	}
}

// Bots returns the documentation of every built-in bot, sorted by tag.
func Bots() []BotDoc {
	out := make([]BotDoc, 0, len(registry))
	for _, b := range registry {
		out = append(out, b.doc)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Tag < out[j].Tag })
	return out
}

// lookup finds the bot of a tag among the extensions and built-in bots.
func (e *Engine) lookup(tag string) (*bot, bool) {
	if b, ok := registry[tag]; ok && b.control {
		return b, true
	}
	for _, x := range e.Extensions {
		if x.Doc.Tag == tag {
			return extensionBot(x), true
		}
	}
	b, ok := registry[tag]
	return b, ok
}

func extensionBot(x Extension) *bot {
	// A "*" or "#" bot takes a query (a "#" one pushes it down to its
	// source) rather than parameters.
	b := &bot{doc: x.Doc, star: strings.HasPrefix(x.Doc.Tag, "*") || strings.HasPrefix(x.Doc.Tag, "#")}
	for _, p := range x.Doc.Params {
		if p.Name == "<column>" {
			b.free = true
		}
	}
	b.run = func(r *run, in *frame.Frame, p *params) (*frame.Frame, error) {
		m := map[string]string{}
		if b.star {
			m["query"] = p.query
		}
		for _, d := range x.Doc.Params {
			if d.Default != "" {
				m[d.Name] = d.Default
			}
		}
		for _, q := range p.list {
			m[q.Key] = q.Value
		}
		if x.Run == nil {
			return nil, fmt.Errorf("bot has no implementation")
		}
		return x.Run(r.withLog(r.ctx, r.at), in, m)
	}
	return b
}

// p builds a ParamDoc (a shorthand for the bot tables).
func p(name, typ string, required bool, def, desc string, choices ...string) ParamDoc {
	return ParamDoc{Name: name, Type: typ, Required: required, Default: def, Description: desc, Choices: choices}
}
