package cli

import (
	"strings"
	"testing"
)

// TestFrameBuiltins checks the frame value from Starlark: each expression
// is evaluated against a frame read from salesCSV and printed.
func TestFrameBuiltins(t *testing.T) {
	dir := t.TempDir()
	src := write(t, dir, "sales.csv", salesCSV)
	tests := []struct {
		expr string
		want string
	}{
		{`len(f)`, "3"},
		{`f.columns`, `["region", "units", "price", "ok", "when"]`},
		{`f.dtypes`, `{"region": "object", "units": "int64", "price": "float64", "ok": "bool", "when": "datetime64[ns]"}`},
		{`f.shape`, "(3, 5)"},
		{`(f.num_rows, f.num_columns)`, "(3, 5)"},
		{`f.mem_size_mb > 0`, "True"},
		{`f.head(2).column("region")`, `["north", "south"]`},
		{`f.head().num_rows`, "3"},
		{`f.tail(1).column("region")`, `["east"]`},
		{`f.select(["price", "region"]).columns`, `["price", "region"]`},
		{`f.select("units").columns`, `["units"]`},
		{`f.sort("units").column("units")`, "[1, 3, 7]"},
		{`f.sort(["price"], desc=True).column("region")`, `["east", "north", "south"]`},
		{`f.filter(lambda r: r["ok"]).column("region")`, `["north", "east"]`},
		{`len(f.filter(lambda r: False))`, "0"},
		{`f.rows()[1]["units"]`, "7"},
		{`f.rows()[0]["when"]`, "2026-01-02T03:04:05.000000"},
		{`[r["region"] for r in f]`, `["north", "south", "east"]`},
		{`f[2]["price"]`, "10.0"},
		{`(bool(f), bool(f.head(0)))`, "(True, False)"},
		{`type(f)`, "frame"},
		{`frame.from_rows([{"a": 1, "b": "x"}, {"a": 2.5, "c": True}]).dtypes`, `{"a": "float64", "b": "object", "c": "bool"}`},
		{`frame.from_rows([{"a": 1}, {"b": 2}]).rows()`, `[{"a": 1, "b": None}, {"a": None, "b": 2}]`},
		{`frame.from_rows(f.rows()).dtypes == f.dtypes`, "True"},
		{`frame.read(OUT + "/x.parquet").rows() == f.rows()`, "True"},
		{`frame.read(OUT + "/x.parquet", format="parquet").dtypes == f.dtypes`, "True"},
		{`f.write(OUT + "/y.jsonl")`, "3"},
		{`f.to_csv(OUT + "/z.csv.gz")`, "3"},
		{`f.to_parquet(OUT + "/z.pq") and frame.read(OUT + "/z.pq", format="parquet").rows() == f.rows()`, "True"},
		{`f.to_json(OUT + "/z.json") and frame.read(OUT + "/z.json").rows() == f.rows()`, "True"},
		{`frame.read(OUT + "/y.jsonl").rows() == f.rows()`, "True"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			script := "OUT = " + quote(t.TempDir()) + "\nf = frame.read(" + quote(src) + ")\n" +
				"f.write(OUT + \"/x.parquet\")\nf.write(OUT + \"/y.jsonl\")\nprint(" + tt.expr + ")\n"
			out, errOut, code := run(t, "", "run", write(t, t.TempDir(), "t.star", script))
			if code != 0 || strings.TrimSpace(out) != tt.want {
				t.Fatalf("got %d %q %q, want %q", code, out, errOut, tt.want)
			}
		})
	}
}

func TestFramePrint(t *testing.T) {
	src := write(t, t.TempDir(), "sales.csv", salesCSV)
	out, errOut, code := run(t, "", "run", write(t, t.TempDir(), "t.star", "print(frame.read("+quote(src)+"))\n"))
	want := `   region  units  price     ok                 when
0   north      3    2.5   True  2026-01-02 03:04:05
1   south      7   1.25  False  2026-02-03 04:05:06
2    east      1   10.0   True  2026-03-04 05:06:07

[3 rows x 5 columns]
`
	if code != 0 || out != want {
		t.Fatalf("exit %d %q\ngot:\n%s\nwant:\n%s", code, errOut, out, want)
	}
}

func TestFrameErrors(t *testing.T) {
	dir := t.TempDir()
	src := write(t, dir, "sales.csv", salesCSV)
	tests := []struct {
		expr string
		want string
	}{
		{`frame.read(DIR + "/none.csv")`, "none.csv: no such file or directory"},
		{`frame.read(DIR + "/sales.csv", format="xml")`, `"xml"`},
		{`frame.read(DIR + "/bad.csv")`, "line 3"},
		{`f.select(["nope"])`, "nope"},
		{`f.sort("nope")`, "nope"},
		{`f.column("nope")`, "nope"},
		{`f.filter("units >")`, "col "},
		{`f.filter(3)`, "want a function of the row"},
		{`f.filter(lambda r: r["nope"])`, "row 0"},
		{`frame.from_rows([1])`, "row 0 is a int, not a dict"},
		{`{f: 1}`, "unhashable"},
	}
	write(t, dir, "bad.csv", "a,b\n1,2\n3,4,5\n")
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			script := "DIR = " + quote(dir) + "\nf = frame.read(" + quote(src) + ")\n" + tt.expr + "\n"
			_, errOut, code := run(t, "", "run", write(t, t.TempDir(), "t.star", script))
			if code != 1 || !strings.Contains(errOut, tt.want) || strings.Contains(errOut, "goroutine") {
				t.Fatalf("exit %d, stderr %q; want 1 and %q", code, errOut, tt.want)
			}
		})
	}
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }
