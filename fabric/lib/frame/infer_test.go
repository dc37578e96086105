package frame_test

import (
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/fabricops/fabric/fabric/lib/frame"
)

// inferCase is one column: its values in the file, the dtype it gets and
// the values it reads as.
type inferCase struct {
	name  string
	in    []string // CSV fields, or JSON values
	dtype string
	arrow string // the Arrow type, when it matters
	want  []any
}

func readColumn(t *testing.T, f frame.Format, data string) *frame.Frame {
	t.Helper()
	s, err := frame.OpenReader(strings.NewReader(data), f, frame.NoCompression)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fr, err := frame.ReadFrom(s)
	if err != nil {
		t.Fatal(err)
	}
	return fr
}

func checkColumn(t *testing.T, fr *frame.Frame, tc inferCase) {
	t.Helper()
	if got := fr.DTypes(); len(got) != 1 || got[0].DType != tc.dtype {
		t.Errorf("DTypes = %v, want x %s", got, tc.dtype)
	}
	if tc.arrow != "" {
		if got := fr.Schema().Field(0).Type.String(); got != tc.arrow {
			t.Errorf("Arrow type = %s, want %s", got, tc.arrow)
		}
	}
	got, err := fr.Column("x")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(tc.want) {
		t.Fatalf("column = %#v, want %#v", got, tc.want)
	}
	for i := range got {
		if !equalValue(got[i], tc.want[i]) {
			t.Errorf("value %d = %#v (%T), want %#v (%T)", i, got[i], got[i], tc.want[i], tc.want[i])
		}
	}
}

func TestInferCSV(t *testing.T) {
	for _, tc := range []inferCase{
		{"ints", []string{"1", "-2", "+3", " 4 ", "9223372036854775807"}, "int64", "int64",
			[]any{int64(1), int64(-2), int64(3), int64(4), int64(math.MaxInt64)}},
		{"ints with nulls", []string{"1", "", "3"}, "int64", "int64", []any{int64(1), nil, int64(3)}},
		{"int overflow is float", []string{"1", "9223372036854775808"}, "float64", "", []any{1.0, 9223372036854775808.0}},
		{"floats", []string{"1.5", "-0.25", "1e3", ".5"}, "float64", "float64", []any{1.5, -0.25, 1000.0, 0.5}},
		{"mixed int and float", []string{"1", "2.5", "", "3"}, "float64", "float64", []any{1.0, 2.5, nil, 3.0}},
		{"special floats", []string{"NaN", "inf", "-Inf", "1"}, "float64", "", []any{math.NaN(), math.Inf(1), math.Inf(-1), 1.0}},
		{"bools", []string{"true", "False", "TRUE", ""}, "bool", "bool", []any{true, false, true, nil}},
		{"0 and 1 are ints", []string{"0", "1"}, "int64", "", []any{int64(0), int64(1)}},
		{"bool and int is string", []string{"true", "1"}, "object", "utf8", []any{"true", "1"}},
		{"dates", []string{"2024-01-31", "2000-02-29", ""}, "datetime64[ns]", "date32",
			[]any{ts("2024-01-31T00:00:00Z"), ts("2000-02-29T00:00:00Z"), nil}},
		{"naive timestamps", []string{"2024-01-31T10:20:30", "2024-01-31 10:20", "2024-02-01T00:00:00.123456789"},
			"datetime64[ns]", "timestamp[ns]",
			[]any{ts("2024-01-31T10:20:30Z"), ts("2024-01-31T10:20:00Z"), ts("2024-02-01T00:00:00.123456789Z")}},
		{"zoned timestamps", []string{"2024-01-31T10:20:30Z", "2024-01-31T10:20:30+02:00", "2024-01-31T10:20:30-0130"},
			"datetime64[ns]", "timestamp[ns, tz=UTC]",
			[]any{ts("2024-01-31T10:20:30Z"), ts("2024-01-31T08:20:30Z"), ts("2024-01-31T11:50:30Z")}},
		{"dates and timestamps", []string{"2024-01-31", "2024-01-31T12:00:00"}, "datetime64[ns]", "timestamp[ns]",
			[]any{ts("2024-01-31T00:00:00Z"), ts("2024-01-31T12:00:00Z")}},
		{"bad date is string", []string{"2024-02-30"}, "object", "", []any{"2024-02-30"}},
		{"non-leap 1900", []string{"1900-02-29"}, "object", "", []any{"1900-02-29"}},
		{"timestamp out of datetime64 range", []string{"2300-01-01T00:00:00"}, "object", "", []any{"2300-01-01T00:00:00"}},
		{"date out of datetime64 range stays a date", []string{"2300-01-01"}, "datetime64[ns]", "date32", []any{ts("2300-01-01T00:00:00Z")}},
		{"strings", []string{"a", "1", "", "2024-01-01"}, "object", "utf8", []any{"a", "1", nil, "2024-01-01"}},
		{"strings keep spaces", []string{" a "}, "object", "", []any{" a "}},
		{"all empty", []string{"", ""}, "object", "utf8", []any{nil, nil}},
		{"hex is not a number", []string{"0x10"}, "object", "", []any{"0x10"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A second column keeps the rows from being blank lines.
			var b strings.Builder
			b.WriteString("x,pad\n")
			for _, v := range tc.in {
				b.WriteString(v + ",p\n")
			}
			fr := readColumn(t, frame.CSV, b.String())
			fr, err := fr.Select([]string{"x"})
			if err != nil {
				t.Fatal(err)
			}
			checkColumn(t, fr, tc)
		})
	}
}

func TestInferJSON(t *testing.T) {
	for _, tc := range []inferCase{
		{"ints", []string{"1", "-2", "9223372036854775807"}, "int64", "int64", []any{int64(1), int64(-2), int64(math.MaxInt64)}},
		{"ints with nulls", []string{"1", "null", "3"}, "int64", "", []any{int64(1), nil, int64(3)}},
		{"big int is float", []string{"1", "99999999999999999999"}, "float64", "", []any{1.0, 1e20}},
		{"floats", []string{"1.5", "2.0", "1e3", "-1E-2"}, "float64", "float64", []any{1.5, 2.0, 1000.0, -0.01}},
		{"mixed int and float", []string{"1", "2.5", "null"}, "float64", "float64", []any{1.0, 2.5, nil}},
		{"bools", []string{"true", "false", "null"}, "bool", "bool", []any{true, false, nil}},
		{"bool strings are strings", []string{`"true"`, `"false"`}, "object", "", []any{"true", "false"}},
		{"number strings are strings", []string{`"1"`, `"2"`}, "object", "utf8", []any{"1", "2"}},
		{"dates", []string{`"2024-01-31"`, "null", `"1999-12-31"`}, "datetime64[ns]", "date32",
			[]any{ts("2024-01-31T00:00:00Z"), nil, ts("1999-12-31T00:00:00Z")}},
		{"naive timestamps", []string{`"2024-01-31T10:20:30.5"`, `"2024-01-31 10:20"`}, "datetime64[ns]", "timestamp[ns]",
			[]any{ts("2024-01-31T10:20:30.5Z"), ts("2024-01-31T10:20:00Z")}},
		{"zoned timestamps", []string{`"2024-01-31T10:20:30Z"`, `"2024-01-31T10:20:30+01:00"`}, "datetime64[ns]", "timestamp[ns, tz=UTC]",
			[]any{ts("2024-01-31T10:20:30Z"), ts("2024-01-31T09:20:30Z")}},
		{"dates with spaces", []string{`" 2024-01-31 "`, `"2024-02-01"`}, "datetime64[ns]", "date32",
			[]any{ts("2024-01-31T00:00:00Z"), ts("2024-02-01T00:00:00Z")}},
		{"timestamps with spaces", []string{`" 2024-01-31T10:20:30Z"`}, "datetime64[ns]", "timestamp[ns, tz=UTC]",
			[]any{ts("2024-01-31T10:20:30Z")}},
		{"dates and text are strings", []string{`"2024-01-31"`, `"soon"`}, "object", "", []any{"2024-01-31", "soon"}},
		{"empty string keeps a column string", []string{`"2024-01-31"`, `""`}, "object", "", []any{"2024-01-31", ""}},
		{"strings", []string{`"a"`, `"é\n\"q\""`, `"\u00e9"`}, "object", "utf8", []any{"a", "é\n\"q\"", "é"}},
		{"all null", []string{"null", "null"}, "object", "utf8", []any{nil, nil}},
		{"mixed numbers and strings", []string{"1", `"a"`, "true"}, "object", "", []any{"1", "a", "true"}},
		{"nested", []string{`{"a": [1, 2]}`, `[ ]`, "null"}, "object", "utf8", []any{`{"a":[1,2]}`, `[]`, nil}},
		{"nested and scalar", []string{`[1]`, `2`}, "object", "", []any{`[1]`, `2`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var arr, lines strings.Builder
			arr.WriteString("[")
			for i, v := range tc.in {
				if i > 0 {
					arr.WriteString(",\n")
				}
				arr.WriteString(`{"x": ` + v + `}`)
				lines.WriteString(`{"x":` + v + "}\n")
			}
			arr.WriteString("]")
			checkColumn(t, readColumn(t, frame.JSON, arr.String()), tc)
			checkColumn(t, readColumn(t, frame.JSONL, lines.String()), tc)
		})
	}
}

// TestJSONKeys: columns are the keys of the first batch in the order first
// seen; missing keys are nulls.
func TestJSONKeys(t *testing.T) {
	fr := readColumn(t, frame.JSONL, "{\"b\":1}\n\n{\"a\":\"x\",\"b\":2}\n{}\n")
	checkFrame(t, fr, []string{"b", "a"},
		[]frame.DType{{Column: "b", DType: "int64"}, {Column: "a", DType: "object"}},
		[][]any{{int64(1), nil}, {int64(2), "x"}, {nil, nil}})
	fr = readColumn(t, frame.JSON, " [ ] ")
	if fr.NumRows() != 0 || fr.NumCols() != 0 {
		t.Errorf("empty array: %d rows, %d columns", fr.NumRows(), fr.NumCols())
	}
}

// TestCSVHeader: empty names become "Unnamed: i", repeated names get .1,
// .2 as in pandas; a BOM is dropped; CRLF line ends and blank lines are
// fine.
func TestCSVHeader(t *testing.T) {
	fr := readColumn(t, frame.CSV, "\xef\xbb\xbfa,,a,a,a.1\r\n1,2,3,4,5\r\n\r\n6,7,8,9,10")
	checkFrame(t, fr, []string{"a", "Unnamed: 1", "a.1", "a.2", "a.1.1"}, nil,
		[][]any{{int64(1), int64(2), int64(3), int64(4), int64(5)}, {int64(6), int64(7), int64(8), int64(9), int64(10)}})
	fr = readColumn(t, frame.CSV, "only,header\n")
	checkFrame(t, fr, []string{"only", "header"},
		[]frame.DType{{Column: "only", DType: "object"}, {Column: "header", DType: "object"}}, nil)
}

// TestCSVQuoting covers RFC 4180 quoting and the lenient cases.
func TestCSVQuoting(t *testing.T) {
	fr := readColumn(t, frame.CSV, "a,b\n"+
		"\"x,y\",\"multi\nline\"\n"+
		"\"say \"\"hi\"\"\",plain\n"+
		"\"quoted\"tail,in\"side\n"+
		"\"\",\"crlf\r\nkept\"\r\n")
	checkFrame(t, fr, []string{"a", "b"}, nil, [][]any{
		{"x,y", "multi\nline"},
		{`say "hi"`, "plain"},
		{"quotedtail", `in"side`},
		{nil, "crlf\r\nkept"},
	})
}

// TestDTypeOf names every Arrow type as pandas does.
func TestDTypeOf(t *testing.T) {
	for _, tc := range []struct {
		t    arrow.DataType
		want string
	}{
		{arrow.PrimitiveTypes.Int8, "int8"}, {arrow.PrimitiveTypes.Int16, "int16"},
		{arrow.PrimitiveTypes.Int32, "int32"}, {arrow.PrimitiveTypes.Int64, "int64"},
		{arrow.PrimitiveTypes.Uint8, "uint8"}, {arrow.PrimitiveTypes.Uint64, "uint64"},
		{arrow.PrimitiveTypes.Float32, "float32"}, {arrow.PrimitiveTypes.Float64, "float64"},
		{arrow.FixedWidthTypes.Boolean, "bool"},
		{arrow.FixedWidthTypes.Date32, "datetime64[ns]"}, {arrow.FixedWidthTypes.Date64, "datetime64[ns]"},
		{arrow.FixedWidthTypes.Timestamp_us, "datetime64[ns]"},
		{arrow.FixedWidthTypes.Duration_ns, "timedelta64[ns]"},
		{&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}, "category"},
		{arrow.BinaryTypes.String, "object"}, {arrow.BinaryTypes.LargeString, "object"},
		{arrow.BinaryTypes.Binary, "object"}, {arrow.ListOf(arrow.PrimitiveTypes.Int64), "object"},
	} {
		if got := frame.DTypeOf(tc.t); got != tc.want {
			t.Errorf("DTypeOf(%s) = %s, want %s", tc.t, got, tc.want)
		}
	}
}

func TestParseFormatAndDetect(t *testing.T) {
	for in, want := range map[string]frame.Format{
		"": frame.Auto, "auto": frame.Auto, " CSV ": frame.CSV, "json": frame.JSON, "ndjson": frame.JSONL,
		"jsonl": frame.JSONL, "parquet": frame.Parquet, "pq": frame.Parquet, "excel": frame.XLSX, "xls": frame.XLS, "orc": frame.ORC,
	} {
		if got, err := frame.ParseFormat(in); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %q, %v, want %q", in, got, err, want)
		}
	}
	_, err := frame.ParseFormat("dbase")
	wantErr(t, err, `unknown format "dbase"`)

	for _, tc := range []struct {
		path string
		f    frame.Format
		want frame.Format
		c    frame.Compression
		err  string
	}{
		{"a.csv", frame.Auto, frame.CSV, frame.NoCompression, ""},
		{"dir.x/A.CSV.GZ", "", frame.CSV, frame.Gzip, ""},
		{"a.json.gzip", frame.Auto, frame.JSON, frame.Gzip, ""},
		{"a.ndjson.bz2", frame.Auto, frame.JSONL, frame.Bzip2, ""},
		{"a.jsonl.xz", frame.Auto, frame.JSONL, frame.XZ, ""},
		{"a.csv.zst", frame.Auto, frame.CSV, frame.Zstd, ""},
		{"a.csv.zstd", frame.Auto, frame.CSV, frame.Zstd, ""},
		{"a.parq", frame.Auto, frame.Parquet, frame.NoCompression, ""},
		{"a.xlsm", frame.Auto, frame.XLSX, frame.NoCompression, ""},
		{"old.XLS", frame.Auto, frame.XLS, frame.NoCompression, ""},
		{"a.orc", frame.Auto, frame.ORC, frame.NoCompression, ""},
		{"a.txt.gz", frame.CSV, frame.CSV, frame.Gzip, ""},
		{"a.dat", frame.JSONL, frame.JSONL, frame.NoCompression, ""},
		{"a.txt", frame.Auto, "", "", `cannot tell the format of "a.txt"`},
		{"noext", frame.Auto, "", "", `cannot tell the format of "noext"`},
		{"a.parquet.gz", frame.Auto, "", "", "gzip compression applies to csv, json and jsonl files only"},
		{"a.dat", "dbf", "", "", "unknown format"},
	} {
		f, c, err := frame.Detect(tc.path, tc.f)
		if tc.err != "" {
			wantErr(t, err, tc.err)
			continue
		}
		if err != nil || f != tc.want || c != tc.c {
			t.Errorf("Detect(%q, %q) = %q, %q, %v, want %q, %q", tc.path, tc.f, f, c, err, tc.want, tc.c)
		}
	}
}

// TestInvalidUTF8: text that is not UTF-8 (Latin-1 here) has its invalid
// bytes replaced with U+FFFD, in values and column names.
func TestInvalidUTF8(t *testing.T) {
	fr := readColumn(t, frame.CSV, "caf\xe9,n\nna\xefve,1\nok,2\n")
	checkFrame(t, fr, []string{"caf\uFFFD", "n"}, nil, [][]any{{"na\uFFFDve", int64(1)}, {"ok", int64(2)}})
	for _, f := range []frame.Format{frame.JSON, frame.JSONL} {
		data := "{\"k\xe9\":\"v\xff\",\"e\":\"\\n\xff\",\"j\":[\"\xfe\"]}\n"
		if f == frame.JSON {
			data = "[" + data + "]"
		}
		fr := readColumn(t, f, data)
		checkFrame(t, fr, []string{"k\uFFFD", "e", "j"}, nil, [][]any{{"v\uFFFD", "\n\uFFFD", "[\"\uFFFD\"]"}})
	}
	g, err := frame.FromRows([]string{"s"}, [][]any{{"bad \xff"}})
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, g, [][]any{{"bad \uFFFD"}})
}
