package stdlib

import (
	"fmt"
	"testing"
)

func TestRe(t *testing.T) {
	runCases(t, "", []testCase{
		{name: "match", src: `print(re.match(r"(\w+)-(\d+)", "ab-12 cd-34"))`, want: `["ab-12", "ab", "12"]` + "\n"},
		{name: "match anchored", src: `print(re.match(r"\d+", "x12"))`, want: "None\n"},
		{name: "match alternation", src: `print(re.match("a|ab", "ab"))`, want: `["a"]` + "\n"},
		{name: "match flags", src: `print(re.match("(?i)abc", "ABCD"))`, want: `["ABC"]` + "\n"},
		{name: "match optional group", src: `print(re.match("(a)(b)?", "a"))`, want: `["a", "a", None]` + "\n"},
		{name: "search", src: `print(re.search(r"\d+", "x12y"))`, want: `["12"]` + "\n"},
		{name: "search none", src: `print(re.search(r"\d", "xy"))`, want: "None\n"},
		{name: "fullmatch", src: `print(re.fullmatch("a|ab", "ab"), re.fullmatch("a", "ab"))`, want: `["ab"] None` + "\n"},
		{name: "findall plain", src: `print(re.findall(r"\d+", "a1b22c333"))`, want: `["1", "22", "333"]` + "\n"},
		{name: "findall one group", src: `print(re.findall(r"(\w)=\d", "a=1 b=2"))`, want: `["a", "b"]` + "\n"},
		{name: "findall groups", src: `print(re.findall(r"(\w)=(\d)?", "a=1 b="))`, want: `[("a", "1"), ("b", "")]` + "\n"},
		{name: "sub", src: `print(re.sub(r"(\w+)@(\w+)", r"\2 at \1", "joe@home, ann@work"))`, want: "home at joe, work at ann\n"},
		{name: "sub named", src: `print(re.sub(r"(?P<k>\w+)=(?P<v>\w+)", r"\g<v>=\g<k>\g<0>", "a=b"))`, want: "b=aa=b\n"},
		{name: "sub count", src: `print(re.sub("a", "b", "aaa", count=2))`, want: "bba\n"},
		{name: "sub dollar and escapes", src: `print(repr(re.sub("x", r"$1\\\n\.", "x")))`, want: `"$1\\\n\\."` + "\n"},
		{name: "sub function", src: `print(re.sub(r"\d+", lambda m: str(int(m[0]) * 2), "a1b21"))`, want: "a2b42\n"},
		{name: "sub bad group", src: `re.sub("(a)", r"\2", "a")`, wantErr: "re.sub: invalid group reference 2"},
		{name: "sub bad name", src: `re.sub("(a)", r"\g<x>", "a")`, wantErr: `re.sub: unknown group name "x"`},
		{name: "sub bad escape", src: `re.sub("a", r"\q", "a")`, wantErr: `re.sub: bad escape \q`},
		{name: "sub bad repl", src: `re.sub("a", 1, "a")`, wantErr: "re.sub: for parameter repl: got int, want str or function"},
		{name: "split", src: `print(re.split(r",\s*", "a, b,c"))`, want: `["a", "b", "c"]` + "\n"},
		{name: "split groups", src: `print(re.split(r"(,)", "a,b"))`, want: `["a", ",", "b"]` + "\n"},
		{name: "split maxsplit", src: `print(re.split(",", "a,b,c", maxsplit=1))`, want: `["a", "b,c"]` + "\n"},
		{name: "escape", src: `print(re.escape("a.b*c"), re.match(re.escape("1+1"), "1+1=2"))`, want: `a\.b\*c ["1+1"]` + "\n"},
		{name: "named", src: `print(re.named(r"(?P<user>\w+)@(?P<host>\w+)?", "joe@"))`, want: `{"user": "joe", "host": None}` + "\n"},
		{name: "named none", src: `print(re.named(r"(?P<x>\d)", "a"))`, want: "None\n"},
		{name: "bad pattern", src: `re.match("(", "x")`, wantErr: `re.match: invalid pattern "(": missing closing )`},
		{name: "bad pattern search", src: `re.search("a**", "x")`, wantErr: `re.search: invalid pattern "a**": invalid nested repetition operator at ` + "`**`"},
		{name: "backreference", src: `re.findall(r"(a)\1", "aa")`, wantErr: `re.findall: invalid pattern "(a)\\1": invalid escape sequence at ` + "`\\1`"},
	})
}

func TestReCacheBounded(t *testing.T) {
	for i := range 3 * reCacheSize {
		if _, err := compileRE("re.search", fmt.Sprintf("a{%d}", i%1000), "search"); err != nil {
			t.Fatal(err)
		}
	}
	reCache.Lock()
	n := len(reCache.m)
	reCache.Unlock()
	if n > reCacheSize {
		t.Fatalf("cache holds %d patterns, want at most %d", n, reCacheSize)
	}
}
