// Package starguard holds what the fenced Starlark interpreters of the
// fabric (the pipeline engine's eval and the bot packages' runtime) share
// to bound the values a program makes before it makes them.
package starguard

import (
	"strings"
	"unicode/utf8"

	"go.starlark.net/starlark"
)

// StringMethodSize is the most bytes the result of s.name(args) can
// hold, for the string methods that can grow a string (replace, format,
// join; 0 for the others); size is the size of an argument value.
func StringMethodSize(s, name string, args starlark.Tuple, kwargs []starlark.Tuple, size func(starlark.Value) int) float64 {
	switch name {
	case "replace":
		if len(args) < 2 {
			return 0
		}
		old, _ := starlark.AsString(args[0])
		new, _ := starlark.AsString(args[1])
		n := float64(utf8.RuneCountInString(s) + 1)
		if old != "" {
			n = float64(strings.Count(s, old))
		}
		return float64(len(s)) + n*float64(max(len(new)-len(old), 0))
	case "format":
		largest := 0
		for _, v := range args {
			largest = max(largest, size(v))
		}
		for _, kv := range kwargs {
			largest = max(largest, size(kv[1]))
		}
		return float64(len(s)) + float64(strings.Count(s, "{"))*float64(largest)
	case "join":
		if len(args) != 1 {
			return 0
		}
		seq, ok := args[0].(starlark.Indexable)
		if !ok {
			return 0
		}
		total := float64(len(s)) * float64(seq.Len())
		for i := 0; i < seq.Len(); i++ {
			total += float64(size(seq.Index(i)))
		}
		return total
	}
	return 0
}
