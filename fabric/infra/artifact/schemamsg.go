package artifact

import (
	"math/big"
	"strconv"
	"strings"
)

// schemaMessage turns a validator's error ("validating
// /properties/a: validating /properties/a/items: ...: enum: x does not
// equal any of: [...]") into the field and the rule ("a[].severity: x
// does not equal any of: [...]").
func schemaMessage(err error) string {
	msg := err.Error()
	var field []string
	for strings.HasPrefix(msg, "validating ") {
		path, rest, ok := strings.Cut(strings.TrimPrefix(msg, "validating "), ": ")
		if !ok {
			break
		}
		parts := strings.Split(path, "/")
		if n := len(parts); n >= 2 && parts[n-2] == "properties" {
			field = append(field, parts[n-1])
		} else if n >= 1 && parts[n-1] == "items" && len(field) > 0 {
			field[len(field)-1] += "[]"
		}
		msg = rest
	}
	// What is left is the rule: "enum: x does not equal any of: [...]".
	if rule, detail, ok := strings.Cut(msg, ": "); ok && !strings.Contains(rule, " ") {
		msg = detail
		if numberRules[rule] {
			msg = tidyComparison(detail)
		}
	}
	if len(field) == 0 {
		return msg
	}
	return strings.Join(field, ".") + ": " + msg
}

// numberRules are the schema rules whose message compares two numbers:
// "N is less than M", the first a rational ("201/2"), the second a float
// ("100.000000").
var numberRules = map[string]bool{"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true}

// tidyComparison rewrites the two numbers of a comparison message, its
// first and last words, as a user writes them ("100.5 is greater than
// 100"); the words between are left as they are.
func tidyComparison(msg string) string {
	first, rest, ok := strings.Cut(msg, " ")
	i := strings.LastIndexByte(rest, ' ')
	if !ok || i < 0 {
		return msg
	}
	return tidyNumber(first) + " " + rest[:i+1] + tidyNumber(rest[i+1:])
}

// tidyNumber prints a number the schema library formatted, as a
// rational or a float, in its shortest decimal form; a word that is not a
// number is returned as it is.
func tidyNumber(s string) string {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return s
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}
