package engine

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/fabricops/fabric/fabric/lib/botquery"
	"go.starlark.net/syntax"
)

// StepError is an error of one step: its 1-based number and tag, the
// parameter at fault if any, and the cause. It reads
// "step 3 (@dm:sort): parameter 'order' must be 'asc' or 'desc', not 'up'".
type StepError struct {
	Step  int
	Tag   string
	Param string
	Err   error
}

// Error names the step, its tag and what is wrong.
func (e *StepError) Error() string { return fmt.Sprintf("step %d (%s): %v", e.Step, e.Tag, e.Err) }

// Unwrap returns the cause.
func (e *StepError) Unwrap() error { return e.Err }

// paramError is an error about one parameter; its message names it.
type paramError struct {
	param string
	msg   string
}

func (e *paramError) Error() string { return e.msg }

// badParam returns "parameter 'name' <format>".
func badParam(name, format string, args ...any) error {
	return &paramError{param: name, msg: fmt.Sprintf("parameter '%s' ", name) + fmt.Sprintf(format, args...)}
}

// paramErr returns "parameter 'name': <format>", for failures of a
// valid parameter (a missing column, a dataset that cannot be read).
func paramErr(name, format string, args ...any) error {
	return &paramError{param: name, msg: fmt.Sprintf("parameter '%s': ", name) + fmt.Sprintf(format, args...)}
}

// params are the parsed parameters of a step, with its bot for defaults.
type params struct {
	b     *bot
	list  []botquery.Param
	m     map[string]botquery.Param
	query string // the whole query of a "*" bot
}

// newParams parses the query of a step for bot b.
func newParams(b *bot, query string) (*params, error) {
	p := &params{b: b, m: map[string]botquery.Param{}}
	if b.star {
		p.query = strings.TrimSpace(query)
		return p, nil
	}
	list, err := botquery.ParseList(query)
	if err != nil {
		return nil, err
	}
	p.list = list
	for _, q := range list {
		p.m[q.Key] = q
	}
	return p, nil
}

// substitute replaces loop variables in the values (or the query).
func (p *params) substitute(vars map[string]string) {
	if len(vars) == 0 {
		return
	}
	p.query = subst(p.query, vars)
	for i := range p.list {
		p.list[i].Value = subst(p.list[i].Value, vars)
		p.m[p.list[i].Key] = p.list[i]
	}
}

// doc returns the documentation of a named parameter.
func (p *params) doc(name string) (ParamDoc, bool) {
	for _, d := range p.b.doc.Params {
		if d.Name == name {
			return d, true
		}
	}
	return ParamDoc{}, false
}

// has tells whether a parameter was given.
func (p *params) has(name string) bool { _, ok := p.m[name]; return ok }

// str returns a parameter's value, or its default.
func (p *params) str(name string) string {
	if q, ok := p.m[name]; ok {
		return q.Value
	}
	d, _ := p.doc(name)
	return d.Default
}

// int returns an integer parameter (validated beforehand).
func (p *params) int(name string) int {
	n, _ := strconv.Atoi(strings.TrimSpace(p.str(name)))
	return n
}

// float returns a number parameter (validated beforehand).
func (p *params) float(name string) float64 {
	f, _ := strconv.ParseFloat(strings.TrimSpace(p.str(name)), 64)
	return f
}

// flag returns a bool parameter.
func (p *params) flag(name string) bool {
	b, _ := parseBool(p.str(name))
	return b
}

// cols returns a list parameter: comma-separated, trimmed, without empty
// items.
func (p *params) cols(name string) []string { return splitList(p.str(name), ",") }

// typed returns a parameter's value typed: a bare value is a number,
// true/false or null when it reads as one; a quoted value is a string.
func (p *params) typed(name string) any {
	q, ok := p.m[name]
	if !ok {
		d, _ := p.doc(name)
		if d.Default == "" {
			return nil
		}
		return d.Default
	}
	return typedValue(q)
}

func typedValue(q botquery.Param) any {
	if q.Quoted {
		return q.Value
	}
	return bareValue(q.Value)
}

// bareValue types an unquoted value; an empty one (a loop variable
// holding a null) is null.
func bareValue(s string) any {
	if s == "" {
		return nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f
	}
	switch strings.ToLower(s) {
	case "true":
		return true
	case "false":
		return false
	case "null", "none":
		return nil
	}
	return s
}

func splitList(s, sep string) []string {
	var out []string
	for _, x := range strings.Split(s, sep) {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

func parseBool(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "yes", "true", "y", "1", "on":
		return true, true
	case "no", "false", "n", "0", "off", "":
		return false, true
	}
	return false, false
}

// validate checks the parameters against the bot's documentation: unknown
// and missing parameters, typed values and the bot's own checks. With
// lenient, values holding a loop variable ($name) are not checked, since
// they are known only when the step runs.
func (p *params) validate(lenient bool) error {
	if p.b.star {
		if p.query == "" {
			return fmt.Errorf("a query is required")
		}
		return nil
	}
	for _, q := range p.list {
		if _, ok := p.doc(q.Key); !ok && !p.b.free {
			var names []string
			for _, d := range p.b.doc.Params {
				names = append(names, d.Name)
			}
			if len(names) == 0 {
				return badParam(q.Key, "is unknown: %s takes no parameters", p.b.doc.Tag)
			}
			return badParam(q.Key, "is unknown (parameters: %s)", strings.Join(names, ", "))
		}
	}
	for _, d := range p.b.doc.Params {
		q, given := p.m[d.Name]
		if !given {
			if d.Required {
				return &paramError{param: d.Name, msg: fmt.Sprintf("missing parameter '%s'", d.Name)}
			}
			continue
		}
		if lenient && hasVar(q.Value) {
			continue
		}
		if err := checkValue(d, q.Value); err != nil {
			return err
		}
	}
	if p.b.free && len(p.list) == 0 {
		return fmt.Errorf("at least one parameter is required")
	}
	if p.b.check != nil {
		if lenient {
			for _, q := range p.list {
				if hasVar(q.Value) {
					return nil
				}
			}
		}
		return p.b.check(p)
	}
	return nil
}

// checkValue checks one value against its documented type.
func checkValue(d ParamDoc, v string) error {
	t := strings.TrimSpace(v)
	if d.Required && t == "" {
		return badParam(d.Name, "must not be empty")
	}
	switch d.Type {
	case "int":
		if _, err := strconv.Atoi(t); err != nil {
			return badParam(d.Name, "must be an integer, not '%s'", v)
		}
	case "number":
		if _, err := strconv.ParseFloat(t, 64); err != nil {
			return badParam(d.Name, "must be a number, not '%s'", v)
		}
	case "bool":
		if _, ok := parseBool(v); !ok {
			return badParam(d.Name, "must be 'yes' or 'no', not '%s'", v)
		}
	case "choice":
		for _, c := range d.Choices {
			if t == c {
				return nil
			}
		}
		return badParam(d.Name, "must be %s, not '%s'", choiceList(d.Choices), v)
	case "regex":
		if _, err := regexp.Compile(v); err != nil {
			return badParam(d.Name, "is not a valid regex: %v", err)
		}
	case "list":
		if d.Required && len(splitList(v, ",")) == 0 {
			return badParam(d.Name, "must list at least one name")
		}
	case "expr":
		if _, err := (&syntax.FileOptions{}).ParseExpr(d.Name, v, 0); err != nil {
			return badParam(d.Name, "is not a valid expression: %v", err)
		}
	}
	return nil
}

// choiceList renders choices as "'a' or 'b'" or "one of 'a', 'b', 'c'".
func choiceList(cs []string) string {
	q := make([]string, len(cs))
	for i, c := range cs {
		q[i] = "'" + c + "'"
	}
	if len(q) == 2 {
		return q[0] + " or " + q[1]
	}
	return "one of " + strings.Join(q, ", ")
}

// hasVar tells whether s refers to a variable ($name or ${name}).
func hasVar(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '$' && (s[i+1] == '{' || isIdentStart(s[i+1])) {
			return true
		}
	}
	return false
}

func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isIdent(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// subst replaces $name and ${name} by the values of defined variables; a
// reference to an undefined variable is left as written. $name takes the
// longest name: with "host" defined, "$hostname" is left alone.
func subst(s string, vars map[string]string) string {
	if len(vars) == 0 || !strings.Contains(s, "$") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '$' || i+1 >= len(s) {
			b.WriteByte(s[i])
			i++
			continue
		}
		if s[i+1] == '{' {
			if end := strings.IndexByte(s[i+2:], '}'); end >= 0 {
				if v, ok := vars[s[i+2:i+2+end]]; ok {
					b.WriteString(v)
					i += end + 3
					continue
				}
			}
		} else if isIdentStart(s[i+1]) {
			j := i + 1
			for j < len(s) && isIdent(s[j]) {
				j++
			}
			if v, ok := vars[s[i+1:j]]; ok {
				b.WriteString(v)
				i = j
				continue
			}
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}
