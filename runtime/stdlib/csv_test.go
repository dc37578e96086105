package stdlib

import "testing"

func TestCSV(t *testing.T) {
	runCases(t, "", []testCase{
		{name: "decode header", src: `print(csv.decode("name,age\nann,3\nbob,\n"))`, want: `[{"name": "ann", "age": "3"}, {"name": "bob", "age": ""}]` + "\n"},
		{name: "decode short row", src: `print(csv.decode("a,b,c\n1\n"))`, want: `[{"a": "1", "b": "", "c": ""}]` + "\n"},
		{name: "decode quoted", src: `print(csv.decode('a,b\n"x, y","say ""hi""\nz"\n'))`, want: `[{"a": "x, y", "b": "say \"hi\"\nz"}]` + "\n"},
		{name: "decode no header", src: `print(csv.decode("1,2\n3\n", header=False))`, want: `[["1", "2"], ["3"]]` + "\n"},
		{name: "decode delimiter", src: `print(csv.decode("a;b\n1;2\n", delimiter=";"))`, want: `[{"a": "1", "b": "2"}]` + "\n"},
		{name: "decode tab crlf bom", src: `print(csv.decode("\ufeffa\tb\r\n1\t2\r\n", delimiter="\t"))`, want: `[{"a": "1", "b": "2"}]` + "\n"},
		{name: "decode empty", src: `print(csv.decode(""), csv.decode("a,b\n"))`, want: "[] []\n"},
		{name: "decode extra field", src: `csv.decode("a,b\n1,2,3\n")`, wantErr: "csv.decode: line 2: 3 fields, but the header has 2"},
		{name: "decode bad quote", src: `csv.decode('a\n"x\n')`, wantErr: `csv.decode: parse error on line 2, column 4: extraneous or missing " in quoted-field`},
		{name: "decode bad delimiter", src: `csv.decode("a", delimiter=";;")`, wantErr: "csv.decode: delimiter must be a single character"},
		{name: "encode dicts", src: `emit(csv.encode([{"b": 1, "a": "x,y"}, {"a": None, "c": True}]))`, want: "b,a,c\n1,\"x,y\",\n,,True\n"},
		{name: "encode columns", src: `emit(csv.encode([{"b": 1, "a": 2}], columns=["a"]))`, want: "a\n2\n"},
		{name: "encode no header", src: `emit(csv.encode([{"a": 1.0}], header=False))`, want: "1.0\n"},
		{name: "encode lists", src: `emit(csv.encode([[1, "two"], (None, False)]))`, want: "1,two\n,False\n"},
		{name: "encode lists with columns", src: `emit(csv.encode([[1, 2]], columns=["x", "y"], delimiter=";"))`, want: "x;y\n1;2\n"},
		{name: "encode nested", src: `emit(csv.encode([{"a": [1, 2], "b": {"k": "v"}}]))`, want: "a,b\n\"[1,2]\",\"{\"\"k\"\":\"\"v\"\"}\"\n"},
		{name: "encode quotes newlines", src: `emit(csv.encode([["a\nb", 'q"']]))`, want: "\"a\nb\",\"q\"\"\"\n"},
		{name: "encode empty", src: `print(repr(csv.encode([])))`, want: `""` + "\n"},
		{name: "encode bad row", src: `csv.encode([1])`, wantErr: "csv.encode: row 0 is a int, want dict or list"},
		{name: "encode bad key", src: `csv.encode([{1: 2}])`, wantErr: "csv.encode: dict keys must be strings, got int"},
		{name: "round trip", src: `rows = [{"a": "1", "b": "x\ny"}, {"a": "", "b": "\"q\""}]` + "\nprint(csv.decode(csv.encode(rows)) == rows)", want: "True\n"},
	})
}
