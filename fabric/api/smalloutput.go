package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
)

// Limits of the copy of a small output its job's record keeps.
const (
	// SmallOutputRows is the most rows a small output has.
	SmallOutputRows = 100
	// SmallOutputBytes bounds a small output's copy, encoded (rows and
	// text): the record stays small for the clients that list jobs.
	SmallOutputBytes = 4096
)

// SmallOutput is the copy of a job's output that its record keeps when
// the output is small, so that a client without the data libraries can
// print it (the Parquet output stays the output, SPEC 2.9): the cells
// as the data build's frame gives them (Row: nil, bool, int64, uint64,
// float64, string, time.Time) and its printed table. Both are made by
// the worker from the Parquet it stored, read back, so they are what
// the data build reads.
type SmallOutput struct {
	Columns []string `json:"columns"`
	// Kinds are the cells' kind for each column: bool, int, uint,
	// float, string, time, or "" when every cell is null.
	Kinds []string `json:"kinds"`
	// Rows hold each row's cells: JSON values, times as RFC 3339 with
	// nanoseconds, null for a null.
	Rows [][]any `json:"rows"`
	// Text is the output printed as the data build prints a frame.
	Text string `json:"text"`
}

// errNotSmall is why a table has no small copy.
var errNotSmall = errors.New("not a small output")

// NewSmallOutput returns the small copy of a table (cells as
// frame.Frame.Row gives them) printed as text, or nil when it is larger
// than SmallOutputRows or SmallOutputBytes, or holds a cell JSON cannot
// keep exactly (NaN, infinities, a kind this copy does not carry).
func NewSmallOutput(columns []string, rows [][]any, text string) *SmallOutput {
	if len(rows) > SmallOutputRows {
		return nil
	}
	s := &SmallOutput{Columns: columns, Kinds: make([]string, len(columns)), Rows: make([][]any, len(rows)), Text: text}
	for i, row := range rows {
		if len(row) != len(columns) {
			return nil
		}
		out := make([]any, len(row))
		for c, v := range row {
			kind, enc, err := cellKind(v)
			if err != nil || (kind != "" && s.Kinds[c] != "" && s.Kinds[c] != kind) {
				return nil
			}
			if kind != "" {
				s.Kinds[c] = kind
			}
			out[c] = enc
		}
		s.Rows[i] = out
	}
	if b, err := json.Marshal(s); err != nil || len(b) > SmallOutputBytes {
		return nil
	}
	return s
}

// cellKind returns a cell's kind and its JSON value.
func cellKind(v any) (string, any, error) {
	switch x := v.(type) {
	case nil:
		return "", nil, nil
	case bool:
		return "bool", x, nil
	case int64:
		return "int", x, nil
	case uint64:
		return "uint", x, nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "", nil, errNotSmall
		}
		return "float", x, nil
	case string:
		return "string", x, nil
	case time.Time:
		return "time", x.UTC().Format(time.RFC3339Nano), nil
	}
	return "", nil, errNotSmall
}

// Cells returns the rows of a small copy decoded from JSON to the cells
// the data build's frame gives (frame.Frame.Row), times in UTC.
func (s *SmallOutput) Cells() ([][]any, error) {
	out := make([][]any, len(s.Rows))
	for i, row := range s.Rows {
		if len(row) != len(s.Columns) || len(s.Kinds) != len(s.Columns) {
			return nil, fmt.Errorf("small output: row %d has %d cells for %d columns", i, len(row), len(s.Columns))
		}
		cells := make([]any, len(row))
		for c, v := range row {
			x, err := decodeCell(s.Kinds[c], v)
			if err != nil {
				return nil, fmt.Errorf("small output: row %d, column %q: %w", i, s.Columns[c], err)
			}
			cells[c] = x
		}
		out[i] = cells
	}
	return out, nil
}

// UnmarshalJSON decodes numbers exactly (an int64 beyond 2^53 too).
func (s *SmallOutput) UnmarshalJSON(b []byte) error {
	type plain SmallOutput
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode((*plain)(s))
}

// decodeCell turns a cell's JSON value (numbers as json.Number, or as
// Go numbers when the copy was never encoded) back into its kind.
func decodeCell(kind string, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	num := func() (string, error) {
		switch n := v.(type) {
		case json.Number:
			return n.String(), nil
		case int64:
			return strconv.FormatInt(n, 10), nil
		case uint64:
			return strconv.FormatUint(n, 10), nil
		case float64:
			return strconv.FormatFloat(n, 'g', -1, 64), nil
		}
		return "", fmt.Errorf("%v is not a number", v)
	}
	switch kind {
	case "bool":
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case "int", "uint", "float":
		s, err := num()
		if err != nil {
			return nil, err
		}
		switch kind {
		case "int":
			return strconv.ParseInt(s, 10, 64)
		case "uint":
			return strconv.ParseUint(s, 10, 64)
		}
		return strconv.ParseFloat(s, 64)
	case "string":
		if s, ok := v.(string); ok {
			return s, nil
		}
	case "time":
		if s, ok := v.(string); ok {
			t, err := time.Parse(time.RFC3339Nano, s)
			return t.UTC(), err
		}
	}
	return nil, fmt.Errorf("%v is not a %s", v, kind)
}
