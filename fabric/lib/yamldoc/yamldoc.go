// Package yamldoc is the one way the fabric reads YAML a tenant wrote
// (artifacts, bundles, pipelines, the shell's yaml.decode, fabricd's
// settings): the text is parsed into yaml.Nodes and checked against
// Limits before anyone walks it. A text over its size, a document nested
// deeper than its depth (aliases expanded), an alias that refers to
// itself, and aliases that would expand the document by more nodes than
// allowed (a "billion laughs") are refused with one line naming the limit,
// in time and memory proportional to the text: the expansion is computed,
// never carried out.
//
// yaml.v3 guards its Unmarshal into Go values against excessive aliasing,
// but a walk of yaml.Nodes (which keeps key order) has no such guard; the
// nodes Parse returns are safe to walk recursively, following aliases:
// the walk's depth is at most Limits.Depth and its nodes at most the
// text's plus Limits.Expansion.
package yamldoc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"gopkg.in/yaml.v3"
)

// Limits bound what a YAML text may hold; a zero field takes its default.
type Limits struct {
	// Size bounds the bytes of the text.
	Size int
	// Depth bounds the nesting of the documents, aliases expanded.
	Depth int
	// Expansion bounds the nodes aliases add to the documents when
	// expanded (beyond the nodes written in the text).
	Expansion int64
}

// Defaults are the limits of a YAML text when a field is zero.
var Defaults = Limits{Size: 4 << 20, Depth: 1000, Expansion: 100_000}

// withDefaults fills the zero fields of l from Defaults.
func (l Limits) withDefaults() Limits {
	if l.Size <= 0 {
		l.Size = Defaults.Size
	}
	if l.Depth <= 0 {
		l.Depth = Defaults.Depth
	}
	if l.Expansion <= 0 {
		l.Expansion = Defaults.Expansion
	}
	return l
}

// ErrLimit is matched (errors.Is) by every *LimitError.
var ErrLimit = errors.New("YAML limit exceeded")

// LimitError is a YAML text over one of its limits. It matches ErrLimit
// (errors.Is).
type LimitError struct {
	// Limit names the limit: "size", "depth" or "alias expansion".
	Limit string
	// Max is the limit's value (bytes, levels or nodes).
	Max int64
	// Line is the line where it was crossed (0 when not one line).
	Line int
}

// Error reads as one line naming the limit.
func (e *LimitError) Error() string {
	at := ""
	if e.Line > 0 {
		at = fmt.Sprintf("line %d: ", e.Line)
	}
	switch e.Limit {
	case "size":
		return fmt.Sprintf("the YAML text is over its size limit of %s", sizeText(e.Max))
	case "depth":
		return fmt.Sprintf("%sthe YAML document nests deeper than its depth limit of %d levels (aliases expanded)", at, e.Max)
	}
	return fmt.Sprintf("the YAML document's aliases expand it by more than its alias expansion limit of %d nodes", e.Max)
}

// Is makes errors.Is(err, ErrLimit) true.
func (e *LimitError) Is(target error) bool { return target == ErrLimit }

// sizeText writes a size limit for people: 4 MB, 512 KB, 100 B.
func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// Refused reports whether err is a refusal of yamldoc's own (a limit
// crossed, a recursive alias), whose one line callers pass on as it is,
// rather than a syntax error of yaml.v3 they may reword.
func Refused(err error) bool { return errors.Is(err, ErrLimit) || errors.Is(err, ErrRecursiveAlias) }

// ErrRecursiveAlias is matched (errors.Is) by the error of an alias that
// refers to a node containing it.
var ErrRecursiveAlias = errors.New("recursive alias")

// recursiveAlias names the alias and its line.
type recursiveAlias struct {
	name string
	line int
}

func (e *recursiveAlias) Error() string {
	return fmt.Sprintf("line %d: the YAML alias *%s refers to a node that contains it (a recursive alias)", e.line, e.name)
}

func (e *recursiveAlias) Is(target error) bool { return target == ErrRecursiveAlias }

// Parse reads at most max documents of data (every one when max < 0) as
// DocumentNodes, checked against l. An empty text gives no documents.
// Errors of syntax are yaml.v3's ("yaml: line 3: ..."); a text over a
// limit gives a *LimitError, a recursive alias an error matching
// ErrRecursiveAlias.
func Parse(data []byte, max int, l Limits) (docs []*yaml.Node, err error) {
	l = l.withDefaults()
	if len(data) > l.Size {
		return nil, &LimitError{Limit: "size", Max: int64(l.Size)}
	}
	defer func() {
		// yaml.v3 turns its own failures into errors; anything else it
		// panics with is an input it cannot read, not a reason to stop.
		if v := recover(); v != nil {
			docs, err = nil, fmt.Errorf("yaml: cannot parse the text: %v", v)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	c := newChecker(l)
	for max < 0 || len(docs) < max {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, err
		}
		if err := c.check(&n); err != nil {
			return nil, err
		}
		docs = append(docs, &n)
	}
	return docs, nil
}

// ParseOne reads the first document of data (nil for an empty text),
// checked against l. Further documents are not read (see Parse).
func ParseOne(data []byte, l Limits) (*yaml.Node, error) {
	docs, err := Parse(data, 1, l)
	if err != nil || len(docs) == 0 {
		return nil, err
	}
	return docs[0], nil
}

// Unmarshal decodes the first document of data into out as yaml.v3
// does, once the text is within l; with knownFields, a mapping key
// without a field in out's struct is an error. An empty text leaves out
// as it is. The errors of fields that do not fit are joined on one line.
func Unmarshal(data []byte, out any, l Limits, knownFields bool) (err error) {
	if _, err := ParseOne(data, l); err != nil {
		return err
	}
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("yaml: cannot decode the text: %v", v)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(knownFields)
	if err := dec.Decode(out); err != nil && !errors.Is(err, io.EOF) {
		var te *yaml.TypeError
		if errors.As(err, &te) {
			// yaml.v3 writes one line per field under a heading.
			return errors.New(strings.Join(te.Errors, "; "))
		}
		return err
	}
	return nil
}
