package aql

import (
	"errors"
	"strings"
	"testing"
)

// TestLex: the tokens of queries users write, with their positions.
func TestLex(t *testing.T) {
	for _, c := range []struct {
		src  string
		want string // kind:text tokens, space-separated
	}{
		{"FOR u IN users RETURN u", "K:FOR I:u K:IN I:users K:RETURN I:u"},
		{"for u in @@coll filter u.age >= @min return distinct u.name",
			"K:FOR I:u K:IN C:coll K:FILTER I:u O:. I:age O:>= B:min K:RETURN K:DISTINCT I:u O:. I:name"},
		{"FOR v, e, p IN 1..3 OUTBOUND 'people/a' GRAPH 'g' RETURN v",
			"K:FOR I:v O:, I:e O:, I:p K:IN N:1 O:.. N:3 K:OUTBOUND S:people/a K:GRAPH S:g K:RETURN I:v"},
		{`RETURN [1.5, -2e3, "a\"b", 'c\nd', null, true]`,
			`K:RETURN O:[ N:1.5 O:, O:- N:2e3 O:, S:a"b O:, S:c` + "\n" + `d O:, K:NULL O:, K:TRUE O:]`},
		{"LET x = `FOR` // a comment\n/* and\nanother */ RETURN x =~ 'a.*' && !(x != 1)",
			"K:LET I:x O:= I:FOR K:RETURN I:x O:=~ S:a.* O:&& O:! O:( I:x O:!= N:1 O:)"},
		{"RETURN LENGTH(doc.list[*])", "K:RETURN I:LENGTH O:( I:doc O:. I:list O:[ O:* O:] O:)"},
	} {
		toks, err := Lex(c.src)
		if err != nil {
			t.Errorf("%q: %v", c.src, err)
			continue
		}
		var got []string
		for _, tok := range toks {
			if tok.Kind == EOF {
				break
			}
			got = append(got, string("?IKSNBCO"[tok.Kind])+":"+tok.Text)
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.src, g, c.want)
		}
	}
	toks, _ := Lex("FOR x\n  IN y")
	if in := toks[2]; in.Line != 2 || in.Col != 3 {
		t.Errorf("IN at %d:%d, want 2:3", in.Line, in.Col)
	}
}

// TestLexErrors: what cannot be a token is a SyntaxError at its position.
func TestLexErrors(t *testing.T) {
	for src, want := range map[string]string{
		"RETURN 'open":       "unterminated string literal near ''open' at position 1:8",
		"RETURN @":           "bind parameter without a name near '@' at position 1:8",
		"FOR x IN y\n  ;":    "unexpected character near ';' at position 2:3",
		"RETURN 1 /* never ": "unterminated comment near '/* never ' at position 1:10",
	} {
		_, err := Lex(src)
		var se *SyntaxError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want ...%s", src, err, want)
		}
	}
}

// FuzzLex: any input lexes or fails with a SyntaxError, never a panic,
// and tokens come in order.
func FuzzLex(f *testing.F) {
	for _, s := range []string{"FOR u IN users RETURN u", "RETURN 'a\\u00e9'", "1..3", "@@x", "`a`", "/* x", "´b´", ".5e-3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		toks, err := Lex(src)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("%q: %T %v", src, err, err)
			}
			return
		}
		for i := 1; i < len(toks); i++ {
			if toks[i].Offset < toks[i-1].Offset || toks[i].Offset == toks[i-1].Offset && toks[i].Kind != EOF {
				t.Fatalf("%q: token %d at %d after %d", src, i, toks[i].Offset, toks[i-1].Offset)
			}
		}
	})
}
