package pipeline

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// TextForm documents the text form of a pipeline; pipeline add -h shows it.
const TextForm = `The text form writes a pipeline one bot per step, chained with -->:

    ## comments start with ## and belong to the next step
    @dm:empty
      --> @dm:addrow host = 'web-1' & cpu = 93.5
      --> *dm:filter cpu > 90 get host, cpu
      --> @dm:save name = 'hot-hosts'

A step is its tag (@ns:bot, *ns:bot or #ns:bot) and the query after it; it
may run over several lines, and --> may start a line, end one, or sit in
the middle of one. Inside quotes ('...' or "...", with \ escaping the next
character) --> and ## are plain text.`

// tagPattern is what a step's tag looks like: @ns:bot, *ns:bot or #ns:bot.
var tagPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[@*#][A-Za-z_][A-Za-z0-9_.-]*:[A-Za-z0-9_][A-Za-z0-9_.-]*$`)
})

// lineTag is a line that starts with a bot tag.
var lineTag = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[@*#][A-Za-z_][A-Za-z0-9_.-]*:[A-Za-z0-9_][A-Za-z0-9_.-]*(\s|-->|$)`)
})

// ValidTag reports whether tag is a bot tag: @ns:bot, *ns:bot or #ns:bot.
func ValidTag(tag string) bool { return tagPattern().MatchString(tag) }

func tagError(tag string) error {
	if tag == "" {
		return errors.New("the step has no bot tag (want @ns:bot, *ns:bot or #ns:bot)")
	}
	return fmt.Errorf("%q is not a bot tag (want @ns:bot, *ns:bot or #ns:bot)", tag)
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// errNoSteps is the error of a text without a step; it is ErrEmpty.
var errNoSteps error = emptyText{}

type emptyText struct{}

func (emptyText) Error() string {
	return "no steps: the text form needs at least one bot, like @dm:empty"
}

func (emptyText) Is(target error) bool { return target == ErrEmpty }

// ParseText parses the text form of a pipeline (see TextForm) into its
// steps. Comment lines (##) before a step, and comments ending the lines
// of a step, become its comment, one line each; comments after the last
// step are dropped. Outside quotes, runs of
// white space in a query are one space. Errors give the line they are on.
func ParseText(text string) ([]Step, error) {
	text = strings.TrimPrefix(text, "\ufeff")
	p := textParser{}
	for i, line := range strings.Split(text, "\n") {
		if err := p.line(i+1, line); err != nil {
			return nil, err
		}
	}
	if p.quote != 0 {
		return nil, fmt.Errorf("line %d: the quote %c opened here is never closed", p.quoteLine, p.quote)
	}
	if !p.started {
		switch {
		case p.sepLine > 0:
			return nil, fmt.Errorf("line %d: --> with no bot after it", p.sepLine)
		case len(p.steps) == 0:
			return nil, errNoSteps
		}
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	return p.steps, nil
}

type textParser struct {
	steps   []Step
	pending []string // comment lines for the next step

	// The step being read.
	started bool
	raw     strings.Builder
	line1   int // its first line
	comment []string

	sepLine   int  // the line of the last -->
	quote     byte // the open quote, if any
	quoteLine int
}

func (p *textParser) line(n int, line string) error {
	if p.quote == 0 {
		t := strings.TrimLeft(line, " \t\r\v\f")
		switch {
		case strings.HasPrefix(t, "##"):
			p.pending = append(p.pending, strings.TrimSpace(t[2:]))
			return nil
		case p.started && lineTag().MatchString(t):
			return fmt.Errorf("line %d: a bot starts this line but no --> links it to the step before", n)
		case strings.HasPrefix(t, "#") && !lineTag().MatchString(t):
			return fmt.Errorf("line %d: comments start with ##, not #", n)
		}
	}
	for j := 0; j < len(line); j++ {
		c := line[j]
		if p.quote != 0 {
			p.raw.WriteByte(c)
			switch {
			case c == '\\' && j+1 < len(line):
				j++
				p.raw.WriteByte(line[j])
			case c == p.quote:
				p.quote = 0
			}
			continue
		}
		if c == '#' && strings.HasPrefix(line[j:], "##") {
			// A comment to the end of the line: the step's own when one
			// is being read, else the next one's.
			text := strings.TrimSpace(line[j+2:])
			if p.started {
				p.comment = append(p.comment, text)
			} else {
				p.pending = append(p.pending, text)
			}
			break
		}
		if c == '-' && strings.HasPrefix(line[j:], "-->") {
			if !p.started {
				if p.sepLine > 0 {
					return fmt.Errorf("line %d: empty step: no bot between this --> and the one on line %d", n, p.sepLine)
				}
				return fmt.Errorf("line %d: --> with no bot before it", n)
			}
			if err := p.finish(); err != nil {
				return err
			}
			p.sepLine = n
			j += 2
			continue
		}
		if isSpace(c) && !p.started {
			continue
		}
		if !p.started {
			p.started, p.line1 = true, n
			p.comment, p.pending = p.pending, nil
		}
		if c == '\'' || c == '"' {
			p.quote, p.quoteLine = c, n
		}
		p.raw.WriteByte(c)
	}
	if p.started {
		p.raw.WriteByte('\n')
	}
	return nil
}

// finish ends the step being read.
func (p *textParser) finish() error {
	step := Step{Comment: strings.TrimSpace(strings.Join(p.comment, "\n"))}
	body := squeeze(p.raw.String())
	step.Tag, step.Query, _ = strings.Cut(body, " ")
	if !ValidTag(step.Tag) {
		return fmt.Errorf("line %d: step %d: %v", p.line1, len(p.steps)+1, tagError(step.Tag))
	}
	p.steps = append(p.steps, step)
	p.started, p.comment = false, nil
	p.raw.Reset()
	return nil
}

// squeeze makes every run of white space outside quotes one space and
// trims the ends; quoted text stays as it is.
func squeeze(s string) string {
	var b strings.Builder
	var quote byte
	space := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if quote != 0 {
			b.WriteByte(c)
			switch {
			case c == '\\' && i+1 < len(s):
				i++
				b.WriteByte(s[i])
			case c == quote:
				quote = 0
			}
			continue
		}
		if isSpace(c) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		if c == '\'' || c == '"' {
			quote = c
		}
		b.WriteByte(c)
	}
	return b.String()
}

// ToText writes steps in the text form: each step on its line, the ones
// after the first starting with -->, each comment line before its step
// as ## text. ParseText reads it back as the same steps.
func ToText(steps []Step) string {
	var b strings.Builder
	for i, s := range steps {
		indent := ""
		if i > 0 {
			indent = "    "
		}
		if s.Comment != "" {
			for _, l := range strings.Split(s.Comment, "\n") {
				b.WriteString(indent + "##")
				if l != "" {
					b.WriteString(" " + l)
				}
				b.WriteByte('\n')
			}
		}
		if i > 0 {
			b.WriteString(indent + "--> ")
		}
		b.WriteString(s.Tag)
		if s.Query != "" {
			b.WriteString(" " + s.Query)
		}
		b.WriteByte('\n')
	}
	return b.String()
}
