package stdlib

import (
	"fmt"
	"sort"
	"strings"

	"github.com/fabricops/fabric/runtime/doc"
	starlarkmath "go.starlark.net/lib/math"
	starlarktime "go.starlark.net/lib/time"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

var timeDocs = map[string]string{
	"from_timestamp": `from_timestamp(sec, nsec=0)

Returns the time.time of the Unix time sec seconds (plus nsec nanoseconds)
after January 1, 1970 UTC, in the local time zone.`,
	"is_valid_timezone": `is_valid_timezone(loc)

Reports whether loc is a time zone name the system knows, such as "UTC"
or "Europe/Paris".`,
	"now": `now()

Returns the current local time as a time.time. Its attributes include year,
month, day, hour, minute, second, nanosecond, unix and unix_nano; its
methods format(layout) and in_location(name).`,
	"parse_duration": `parse_duration(d)

Parses a duration such as "300ms", "1.5h" or "2h45m" (units ns, us, ms, s,
m, h) and returns a time.duration. Durations compare, add and subtract, and
have hours, minutes, seconds, milliseconds... attributes.`,
	"parse_time": `parse_time(x, format="2006-01-02T15:04:05Z07:00", location="UTC")

Parses the time text x with a Go layout (RFC 3339 by default) and returns a
time.time; location names the time zone of times without an offset.`,
	"time": `time(year=0, month=0, day=0, hour=0, minute=0, second=0, nanosecond=0, location="UTC")

Returns the time.time of the given date and time (keywords only) in the
named time zone. Out-of-range values are normalised (October 32 is
November 1).`,
}

var mathDocs = map[string]string{
	"ceil":      "ceil(x)\n\nReturns the least integer (an int) greater than or equal to x.",
	"floor":     "floor(x)\n\nReturns the greatest integer (an int) less than or equal to x.",
	"round":     "round(x)\n\nReturns x rounded to the nearest integer (a float), halves away from zero.",
	"fabs":      "fabs(x)\n\nReturns the absolute value of x as a float.",
	"copysign":  "copysign(x, y)\n\nReturns a float with the magnitude of x and the sign of y.",
	"mod":       "mod(x, y)\n\nReturns the float remainder of x/y, with the sign of x.",
	"remainder": "remainder(x, y)\n\nReturns the IEEE 754 remainder of x/y (x - n*y with n the nearest integer to x/y).",
	"pow":       "pow(x, y)\n\nReturns x raised to the power y, as a float.",
	"exp":       "exp(x)\n\nReturns e raised to the power x.",
	"sqrt":      "sqrt(x)\n\nReturns the square root of x.",
	"log":       "log(x, base=math.e)\n\nReturns the logarithm of x in the given base (natural by default).",
	"gamma":     "gamma(x)\n\nReturns the Gamma function of x.",
	"acos":      "acos(x)\n\nReturns the arc cosine of x, in radians.",
	"asin":      "asin(x)\n\nReturns the arc sine of x, in radians.",
	"atan":      "atan(x)\n\nReturns the arc tangent of x, in radians.",
	"atan2":     "atan2(y, x)\n\nReturns the arc tangent of y/x, in radians, using the signs of both to pick the quadrant.",
	"cos":       "cos(x)\n\nReturns the cosine of x radians.",
	"sin":       "sin(x)\n\nReturns the sine of x radians.",
	"tan":       "tan(x)\n\nReturns the tangent of x radians.",
	"hypot":     "hypot(x, y)\n\nReturns sqrt(x*x + y*y), the length of the vector (x, y).",
	"degrees":   "degrees(x)\n\nConverts the angle x from radians to degrees.",
	"radians":   "radians(x)\n\nConverts the angle x from degrees to radians.",
	"acosh":     "acosh(x)\n\nReturns the inverse hyperbolic cosine of x.",
	"asinh":     "asinh(x)\n\nReturns the inverse hyperbolic sine of x.",
	"atanh":     "atanh(x)\n\nReturns the inverse hyperbolic tangent of x.",
	"cosh":      "cosh(x)\n\nReturns the hyperbolic cosine of x.",
	"sinh":      "sinh(x)\n\nReturns the hyperbolic sine of x.",
	"tanh":      "tanh(x)\n\nReturns the hyperbolic tangent of x.",
}

func timeModule() starlark.Value {
	return rebuild(starlarktime.Module, timeDocs, `Times and durations (go.starlark.net/lib/time).

time.time values have attributes year, month, day, hour, minute, second,
nanosecond, unix and unix_nano and methods format and in_location; the
constants nanosecond ... hour are durations, so 90 * time.second works.`)
}

func mathModule() starlark.Value {
	return rebuild(starlarkmath.Module, mathDocs, `Floating-point mathematics (go.starlark.net/lib/math).

Functions take ints or floats; the constants are e and pi.`)
}

// rebuild returns a copy of lib, a go.starlark.net library module, whose
// builtins are renamed "module.name" and documented by docs. Other members
// (constants) are kept as they are.
func rebuild(lib *starlarkstruct.Module, docs map[string]string, moduleDoc string) starlark.Value {
	members := make(starlark.StringDict, len(lib.Members))
	names := make([]string, 0, len(lib.Members))
	for name := range lib.Members {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		m := lib.Members[name]
		orig, ok := m.(*starlark.Builtin)
		if !ok {
			members[name] = m
			continue
		}
		text, ok := docs[name]
		if !ok {
			text = fmt.Sprintf("%s(...)\n\nSee go.starlark.net/lib/%s.", name, lib.Name)
		}
		qualified := lib.Name + "." + name
		members[name] = doc.Builtin(qualified, text, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			v, err := orig.CallInternal(thread, args, kwargs)
			if err != nil {
				return nil, qualify(err, orig.Name(), qualified)
			}
			return v, nil
		})
	}
	return doc.Module(lib.Name, moduleDoc, members)
}

// qualify makes an error of a library builtin name it by its qualified
// name: "parse_duration: ..." and Go's "time: ..." become
// "time.parse_duration: ...".
func qualify(err error, name, qualified string) error {
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, name+": "); ok {
		msg = rest
	}
	// Go's time package starts its errors with "time: ".
	msg = strings.TrimPrefix(msg, "time: ")
	msg = strings.Replace(msg, ": time: ", ": ", 1)
	return &qualifiedError{qualified + ": " + msg, err}
}

type qualifiedError struct {
	msg   string
	cause error
}

func (e *qualifiedError) Error() string { return e.msg }
func (e *qualifiedError) Unwrap() error { return e.cause }
