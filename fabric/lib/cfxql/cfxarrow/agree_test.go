package cfxarrow

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/fabricops/fabric/fabric/lib/frame"
)

// typedRecord builds a batch with a column of every type the vector
// evaluator has a kernel for (and a few it has not), with nulls.
func typedRecord(t testing.TB) arrow.Record {
	t.Helper()
	mem := memory.DefaultAllocator
	tsType := &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}
	dictType := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "u64", Type: arrow.PrimitiveTypes.Uint64, Nullable: true},
		{Name: "u16", Type: arrow.PrimitiveTypes.Uint16, Nullable: true},
		{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "ls", Type: arrow.BinaryTypes.LargeString, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "d32", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "d64", Type: arrow.FixedWidthTypes.Date64, Nullable: true},
		{Name: "tsms", Type: tsType, Nullable: true},
		{Name: "dict", Type: dictType, Nullable: true},
		{Name: "nul", Type: arrow.Null, Nullable: true},
		{Name: "Col X", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	r := rand.New(rand.NewSource(7))
	words := []string{"north", "south", "east", "", "80", "443", "-1.5", "true", "2022-01-15", "2022-01-01T10:00:00Z", "Disk full", "error: x"}
	base := time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 300; i++ {
		null := func() bool { return r.Intn(7) == 0 }
		app := func(k int, f func()) {
			if null() {
				b.Field(k).AppendNull()
			} else {
				f()
			}
		}
		app(0, func() { b.Field(0).(*array.Int32Builder).Append(int32(r.Intn(200) - 100)) })
		app(1, func() { b.Field(1).(*array.Int8Builder).Append(int8(r.Intn(256) - 128)) })
		app(2, func() { b.Field(2).(*array.Uint64Builder).Append(uint64(r.Intn(1000))) })
		app(3, func() { b.Field(3).(*array.Uint16Builder).Append(uint16(r.Intn(1000))) })
		app(4, func() { b.Field(4).(*array.Float32Builder).Append(float32(r.Intn(400))/4 - 50) })
		app(5, func() { b.Field(5).(*array.Float64Builder).Append(float64(r.Intn(400))/8 - 25) })
		app(6, func() { b.Field(6).(*array.BooleanBuilder).Append(r.Intn(2) == 0) })
		app(7, func() { b.Field(7).(*array.LargeStringBuilder).Append(words[r.Intn(len(words))]) })
		app(8, func() { b.Field(8).(*array.StringBuilder).Append(words[r.Intn(len(words))]) })
		app(9, func() {
			b.Field(9).(*array.Date32Builder).Append(arrow.Date32FromTime(base.AddDate(0, 0, r.Intn(60)-20)))
		})
		app(10, func() {
			b.Field(10).(*array.Date64Builder).Append(arrow.Date64FromTime(base.AddDate(0, 0, r.Intn(60)-20)))
		})
		app(11, func() {
			b.Field(11).(*array.TimestampBuilder).Append(arrow.Timestamp(base.Add(time.Duration(r.Intn(60*24*60)) * time.Minute).UnixMilli()))
		})
		app(12, func() { b.Field(12).(*array.BinaryDictionaryBuilder).AppendString(words[r.Intn(4)]) })
		b.Field(13).AppendNull()
		app(14, func() { b.Field(14).(*array.StringBuilder).Append(words[r.Intn(len(words))]) })
	}
	return b.NewRecord()
}

// agree checks that Mask over rec (whole and sliced) agrees with Match
// over its rows as dicts.
func agree(t *testing.T, q *Query, rec arrow.Record, dicts []map[string]any) {
	t.Helper()
	for _, from := range []int64{0, 3} {
		r := rec.NewSlice(from, rec.NumRows())
		m, err := q.Mask(r)
		if err != nil {
			t.Fatalf("%s: Mask: %v", q, err)
		}
		for i := 0; i < m.Len(); i++ {
			want, err := q.Match(dicts[int(from)+i])
			if err != nil {
				t.Fatalf("%s: Match: %v", q, err)
			}
			if m.Value(i) != want {
				t.Fatalf("%s: row %d: Mask %v, Match %v (row %v)", q, int(from)+i, m.Value(i), want, dicts[int(from)+i])
			}
		}
		m.Release()
		r.Release()
	}
}

func recordDicts(rec arrow.Record) []map[string]any {
	out := make([]map[string]any, rec.NumRows())
	for i := range out {
		m := map[string]any{}
		for c, col := range rec.Columns() {
			m[rec.ColumnName(c)] = frame.ValueAt(col, i)
		}
		out[i] = m
	}
	return out
}

// literals are the right-hand sides the agreement tests try.
var agreeLits = []string{
	"0", "1", "-1", "50", "-1.5", "2.75", "1e2", "443", "80", "1641031200", "1641031200000",
	"'80'", "'443.0'", "'north'", "'south'", "''", "'true'", "'TRUE'", "'false'", "true", "false",
	"'2022-01-15'", "'2022-01-01T10:00:00Z'", "'Jan 10, 2022 3pm'", "'now'", "'today'", "'-3 days'",
	"'e'", "'1'", "'-'", "'Disk'",
}

var agreeOps = []string{"=", "!=", ">", ">=", "<", "<=", "~", "!~", "^~", "!^~", "~$", "!~$", "in", "not in"}

var agreeTimes = []string{
	"before '2022-01-10'", "after '2022-01-10T12:30:00Z'", "after -5 days", "before today", "after 1641600000",
	"during this month", "during last month", "during '2022-01-05' to '2022-01-20'", "not during this week",
	"during yesterday to now", "before 'Jan 3, 2022 10am'",
}

// TestTypedAgreement runs every operator against every literal over a
// column of every type, and checks the vector evaluator agrees with the
// dict one row by row.
func TestTypedAgreement(t *testing.T) {
	rec := typedRecord(t)
	dicts := recordDicts(rec)
	for _, f := range rec.Schema().Fields() {
		col := "`" + f.Name + "`"
		var queries []string
		for _, o := range agreeOps {
			for _, l := range agreeLits {
				if strings.Contains(o, "in") {
					l = "[" + l + ", 'south', 443]"
				}
				queries = append(queries, col+" "+o+" "+l)
			}
		}
		for _, tm := range agreeTimes {
			queries = append(queries, col+" "+tm)
		}
		queries = append(queries, col+" is null", col+" is not null", col+" ? '^[a-z]+$'", col+" !? '1'",
			col+" in ['north', 'south', 'east', 'x', 'y', 'z', 'w', 'v', 'u', 't']")
		for _, s := range queries {
			q, err := Parse(s)
			if err != nil {
				t.Fatalf("%s: %v", s, err)
			}
			agree(t, q.WithNow(fixedNow), rec, dicts)
		}
	}
}

// TestRandomAgreement checks Mask against Match on random conditions
// combining comparisons with and, or, not and parentheses (which
// exercises the rows the vector evaluator skips).
func TestRandomAgreement(t *testing.T) {
	rec := typedRecord(t)
	dicts := recordDicts(rec)
	r := rand.New(rand.NewSource(1))
	fields := rec.Schema().Fields()
	var gen func(depth int) string
	gen = func(depth int) string {
		if depth > 0 && r.Intn(3) > 0 {
			l, rr := gen(depth-1), gen(depth-1)
			switch r.Intn(4) {
			case 0:
				return l + " and " + rr
			case 1:
				return l + " or " + rr
			case 2:
				return "(" + l + " or " + rr + ") and " + gen(0)
			default:
				return "not (" + l + ") and " + rr
			}
		}
		col := "`" + fields[r.Intn(len(fields))].Name + "`"
		if r.Intn(6) == 0 {
			return col + " " + agreeTimes[r.Intn(len(agreeTimes))]
		}
		return col + " " + agreeOps[r.Intn(len(agreeOps))] + " " + agreeLits[r.Intn(len(agreeLits))]
	}
	for i := 0; i < 3000; i++ {
		s := gen(3)
		q, err := Parse(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		agree(t, q.WithNow(fixedNow), rec, dicts)
	}
}

// TestMaskErrors checks that a column missing from the batch is named.
func TestMaskErrors(t *testing.T) {
	rec := typedRecord(t)
	for _, c := range []struct{ query, err string }{
		{"cpu > 5", "unknown column 'cpu'"},
		{"i32 > 5 and (s = 'x' or `no such` is null)", "unknown column 'no such'"},
	} {
		_, err := MustParse(c.query).Mask(rec)
		if err == nil || err.Error() != c.err {
			t.Errorf("%s: got %v, want %s", c.query, err, c.err)
		}
	}
	f := frame.FromRecords(rec.Schema(), []arrow.Record{rec})
	for _, c := range []struct{ query, err string }{
		{"cpu > 5", "unknown column 'cpu'"},
		{"* GET i32, cpu", "unknown column 'cpu'"},
		{"* GET i32, s as 'i32'", "column 'i32' appears twice in GET"},
	} {
		_, err := MustParse(c.query).Filter(f)
		if err == nil || err.Error() != c.err {
			t.Errorf("Filter %s: got %v, want %s", c.query, err, c.err)
		}
	}
	empty := frame.FromRecords(rec.Schema(), nil)
	if _, err := MustParse("cpu > 5").Filter(empty); err == nil || err.Error() != "unknown column 'cpu'" {
		t.Errorf("Filter on an empty frame: got %v", err)
	}
}

// TestFilterTyped checks that Filter keeps exactly the rows Match keeps,
// with their values, for a column of every type (sliced batches
// included).
func TestFilterTyped(t *testing.T) {
	rec := typedRecord(t)
	dicts := recordDicts(rec)
	f := frame.FromRecords(rec.Schema(), []arrow.Record{rec.NewSlice(0, 100), rec.NewSlice(100, 101), rec.NewSlice(101, 300)})
	for _, s := range []string{"i32 > 0", "s in ['north', 'south'] or b = true", "tsms after '2022-01-20'", "dict = 'south'", "u64 > 500 and not (ls ~ 'e')", "*"} {
		q := MustParse(s).WithNow(fixedNow)
		out, err := q.Filter(f)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		var want [][]any
		for i, d := range dicts {
			if ok, _ := q.Match(d); ok {
				row := make([]any, rec.NumCols())
				for c := range row {
					row[c] = frame.ValueAt(rec.Column(c), i)
				}
				want = append(want, row)
			}
		}
		var got [][]any
		for _, r := range out.Records() {
			got = append(got, recordRows(r)...)
		}
		if len(got) != len(want) || out.NumRows() != len(want) {
			t.Fatalf("%s: %d rows, want %d", s, out.NumRows(), len(want))
		}
		for i, w := range want {
			if got := got[i]; fmt.Sprint(got) != fmt.Sprint(w) {
				t.Fatalf("%s: row %d: %v, want %v", s, i, got, w)
			}
		}
	}
}

// recordRows returns the rows of a batch as Go values (frame.ValueAt).
func recordRows(rec arrow.Record) [][]any {
	out := make([][]any, rec.NumRows())
	for i := range out {
		out[i] = make([]any, rec.NumCols())
		for c, col := range rec.Columns() {
			out[i][c] = frame.ValueAt(col, i)
		}
	}
	return out
}
