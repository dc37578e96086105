// Package starvalue is the one conversion between Go values and Starlark
// values, for the shell's builtins (records, frames' cells) and the
// pipeline engine's expressions alike.
//
// ToStarlark turns the data a Go API returns (scalars, slices, maps, structs
// with json tags, times) into Starlark lists and dicts; Scalar turns one
// table cell; FromStarlark turns what a script passes back into plain Go
// data, keeping the key order of dicts in a Map.
//
// One rule for instants: an instant is a string in the fabric's time
// format (TimeFormat, UTC to the microsecond), the form its records carry
// (a dataset's saved_time), so that a record's time and the same instant
// in a table's cell are the same value and compare as such.
package starvalue

import (
	"encoding"
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.starlark.net/starlark"
)

// maxDepth bounds the nesting of converted values, so that a cyclic value
// is reported instead of overflowing the stack.
const maxDepth = 1000

// KV is one entry of a Map.
type KV struct {
	Key   string
	Value any
}

// Map is an ordered map: a dict whose key order matters. ToStarlark turns it
// into a dict with its entries in order, and FromStarlark returns dicts as
// Maps.
type Map []KV

// Get returns the value of key and whether it is present.
func (m Map) Get(key string) (any, bool) {
	for _, kv := range m {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return nil, false
}

// Keys returns the keys of m in order.
func (m Map) Keys() []string {
	keys := make([]string, len(m))
	for i, kv := range m {
		keys[i] = kv.Key
	}
	return keys
}

// MarshalJSON encodes m as a JSON object with its keys in order.
func (m Map) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, kv := range m {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(kv.Key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(kv.Value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

var (
	timeType          = reflect.TypeFor[time.Time]()
	bigIntType        = reflect.TypeFor[big.Int]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	starlarkValueType = reflect.TypeFor[starlark.Value]()
)

// ToStarlark converts a Go value to a Starlark value:
//
//   - nil and nil pointers become None; bools, integers, floats, strings
//     and []byte become bool, int, float, str and bytes;
//   - slices and arrays become lists;
//   - maps become dicts with their keys sorted; a Map becomes a dict in its
//     own order;
//   - structs become dicts of their exported fields in declaration order,
//     named and filtered by their json tags ("-", omitempty, omitzero);
//   - time.Time becomes a string in TimeFormat (see Instant), json.Number
//     an int or float,
//     and other encoding.TextMarshalers their text;
//   - Starlark values are returned as they are.
func ToStarlark(v any) (starlark.Value, error) {
	if sv, ok := scalar(v); ok {
		return sv, nil
	}
	return toStarlark(v, 0)
}

func toStarlark(v any, depth int) (starlark.Value, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("value nested too deeply (cyclic?)")
	}
	switch x := v.(type) {
	case nil:
		return starlark.None, nil
	case starlark.Value:
		return x, nil
	case bool:
		return starlark.Bool(x), nil
	case int:
		return starlark.MakeInt(x), nil
	case int64:
		return starlark.MakeInt64(x), nil
	case uint64:
		return starlark.MakeUint64(x), nil
	case float64:
		return starlark.Float(x), nil
	case string:
		return starlark.String(x), nil
	case []byte:
		return starlark.Bytes(x), nil
	case json.Number:
		return NumberToStarlark(string(x))
	case *big.Int:
		if x == nil {
			return starlark.None, nil
		}
		return starlark.MakeBigInt(x), nil
	case time.Time:
		return Instant(x), nil
	case Map:
		d := starlark.NewDict(len(x))
		for _, kv := range x {
			e, err := toStarlark(kv.Value, depth+1)
			if err != nil {
				return nil, err
			}
			if err := d.SetKey(starlark.String(kv.Key), e); err != nil {
				return nil, err
			}
		}
		return d, nil
	case []any:
		list := make([]starlark.Value, len(x))
		for i, e := range x {
			sv, err := toStarlark(e, depth+1)
			if err != nil {
				return nil, err
			}
			list[i] = sv
		}
		return starlark.NewList(list), nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		d := starlark.NewDict(len(x))
		for _, k := range keys {
			sv, err := toStarlark(x[k], depth+1)
			if err != nil {
				return nil, err
			}
			if err := d.SetKey(starlark.String(k), sv); err != nil {
				return nil, err
			}
		}
		return d, nil
	}
	return reflectToStarlark(reflect.ValueOf(v), depth)
}

func reflectToStarlark(rv reflect.Value, depth int) (starlark.Value, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("value nested too deeply (cyclic?)")
	}
	if !rv.IsValid() {
		return starlark.None, nil
	}
	t := rv.Type()
	switch t {
	case timeType:
		return Instant(rv.Interface().(time.Time)), nil
	case bigIntType:
		b := rv.Interface().(big.Int)
		return starlark.MakeBigInt(&b), nil
	}
	if t.Implements(starlarkValueType) && rv.Kind() != reflect.Interface {
		if rv.Kind() == reflect.Pointer && rv.IsNil() {
			return starlark.None, nil
		}
		return rv.Interface().(starlark.Value), nil
	}
	switch rv.Kind() {
	case reflect.Struct, reflect.Slice, reflect.Array, reflect.Map, reflect.Pointer:
		if t.Implements(textMarshalerType) && !(rv.Kind() == reflect.Pointer && rv.IsNil()) &&
			!(rv.Kind() == reflect.Slice && rv.IsNil()) && !(rv.Kind() == reflect.Map && rv.IsNil()) {
			text, err := rv.Interface().(encoding.TextMarshaler).MarshalText()
			if err != nil {
				return nil, err
			}
			return starlark.String(text), nil
		}
	}
	switch rv.Kind() {
	case reflect.Bool:
		return starlark.Bool(rv.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return starlark.MakeInt64(rv.Int()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return starlark.MakeUint64(rv.Uint()), nil
	case reflect.Float32:
		// Go through the shortest decimal form so that float32(0.1) is 0.1.
		f, _ := strconv.ParseFloat(strconv.FormatFloat(rv.Float(), 'g', -1, 32), 64)
		return starlark.Float(f), nil
	case reflect.Float64:
		return starlark.Float(rv.Float()), nil
	case reflect.String:
		return starlark.String(rv.String()), nil
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return starlark.None, nil
		}
		return toStarlark(rv.Elem().Interface(), depth+1)
	case reflect.Slice:
		if rv.IsNil() {
			return starlark.NewList(nil), nil
		}
		if t.Elem().Kind() == reflect.Uint8 {
			return starlark.Bytes(rv.Bytes()), nil
		}
		fallthrough
	case reflect.Array:
		list := make([]starlark.Value, rv.Len())
		for i := range list {
			e, err := toStarlark(rv.Index(i).Interface(), depth+1)
			if err != nil {
				return nil, err
			}
			list[i] = e
		}
		return starlark.NewList(list), nil
	case reflect.Map:
		return mapToStarlark(rv, depth)
	case reflect.Struct:
		d := starlark.NewDict(rv.NumField())
		if err := structFields(d, rv, depth); err != nil {
			return nil, err
		}
		return d, nil
	}
	return nil, fmt.Errorf("cannot convert Go %s to a Starlark value", t)
}

func mapToStarlark(rv reflect.Value, depth int) (starlark.Value, error) {
	keys := rv.MapKeys()
	switch rv.Type().Key().Kind() {
	case reflect.String:
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		sort.Slice(keys, func(i, j int) bool { return keys[i].Int() < keys[j].Int() })
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		sort.Slice(keys, func(i, j int) bool { return keys[i].Uint() < keys[j].Uint() })
	case reflect.Bool:
		sort.Slice(keys, func(i, j int) bool { return !keys[i].Bool() && keys[j].Bool() })
	default:
		return nil, fmt.Errorf("cannot convert Go %s to a Starlark value: unsupported key type", rv.Type())
	}
	d := starlark.NewDict(len(keys))
	for _, k := range keys {
		sk, err := reflectToStarlark(k, depth+1)
		if err != nil {
			return nil, err
		}
		sv, err := toStarlark(rv.MapIndex(k).Interface(), depth+1)
		if err != nil {
			return nil, err
		}
		if err := d.SetKey(sk, sv); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// structFields adds the exported fields of the struct rv to d, following
// encoding/json's rules for names, "-", omitempty, omitzero and embedded
// structs.
func structFields(d *starlark.Dict, rv reflect.Value, depth int) error {
	t := rv.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		fv := rv.Field(i)
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
				if fv.IsNil() {
					continue
				}
				fv = fv.Elem()
			}
			if ft.Kind() == reflect.Struct && ft != timeType {
				if err := structFields(d, fv, depth+1); err != nil {
					return err
				}
				continue
			}
		}
		if !f.IsExported() || !fv.CanInterface() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if hasOpt(opts, "omitempty") && isEmpty(fv) {
			continue
		}
		if hasOpt(opts, "omitzero") && isZero(fv) {
			continue
		}
		sv, err := toStarlark(fv.Interface(), depth+1)
		if err != nil {
			return fmt.Errorf("field %s: %w", f.Name, err)
		}
		if err := d.SetKey(starlark.String(name), sv); err != nil {
			return err
		}
	}
	return nil
}

func hasOpt(opts, want string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == want {
			return true
		}
	}
	return false
}

// isEmpty is encoding/json's notion of an empty value for omitempty.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}

// isZero is encoding/json's notion of a zero value for omitzero.
func isZero(v reflect.Value) bool {
	if z, ok := v.Interface().(interface{ IsZero() bool }); ok {
		if (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) && v.IsNil() {
			return true
		}
		return z.IsZero()
	}
	return v.IsZero()
}

// NumberToStarlark converts the text of a JSON number to an int (of any
// size) when it is integral in form, and to a float otherwise.
func NumberToStarlark(s string) (starlark.Value, error) {
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return starlark.MakeInt64(i), nil
		}
		if b, ok := new(big.Int).SetString(s, 10); ok {
			return starlark.MakeBigInt(b), nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, fmt.Errorf("number %s is out of range", s)
	}
	return starlark.Float(f), nil
}

// TimeFormat is how an instant reads: UTC, to the microsecond, as the
// fabric's records write their times (api.TimeFormat).
const TimeFormat = "2006-01-02T15:04:05.000000"

// Instant is the Starlark value of an instant: a string in TimeFormat.
func Instant(t time.Time) starlark.String { return starlark.String(t.UTC().Format(TimeFormat)) }

// Scalar is the Starlark value of a table's cell (nil, bool, integers,
// float64, string, time.Time; anything else as its text).
func Scalar(v any) starlark.Value {
	if sv, ok := scalar(v); ok {
		return sv
	}
	return starlark.String(fmt.Sprint(v))
}

// scalar converts the cell types Scalar knows.
func scalar(v any) (starlark.Value, bool) {
	switch x := v.(type) {
	case nil:
		return starlark.None, true
	case bool:
		return starlark.Bool(x), true
	case int64:
		return starlark.MakeInt64(x), true
	case uint64:
		return starlark.MakeUint64(x), true
	case float64:
		return starlark.Float(x), true
	case string:
		return starlark.String(x), true
	case time.Time:
		return Instant(x), true
	}
	return nil, false
}

// ParseInstant reads s as an instant written by Instant (exactly
// TimeFormat); ok is false for any other string.
func ParseInstant(s string) (t time.Time, ok bool) {
	if len(s) != len(TimeFormat) {
		return time.Time{}, false
	}
	t, err := time.Parse(TimeFormat, s)
	return t, err == nil
}
