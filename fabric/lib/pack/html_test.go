package pack

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// voidElements have no end tag.
var voidElements = map[string]bool{"meta": true, "br": true, "hr": true, "img": true, "link": true, "input": true, "col": true, "wbr": true}

// checkHTML checks that page is a well-formed HTML5 page: a doctype,
// every element closed in order, no script, no external resource.
func checkHTML(t *testing.T, page []byte) {
	t.Helper()
	if !bytes.HasPrefix(page, []byte("<!DOCTYPE html>\n")) {
		t.Errorf("no doctype: %.40q", page)
	}
	z := html.NewTokenizer(bytes.NewReader(page))
	var stack []string
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if z.Err() != io.EOF {
				t.Fatalf("tokenizing: %v", z.Err())
			}
			break
		}
		tok := z.Token()
		switch tt {
		case html.StartTagToken:
			if tok.Data == "script" || tok.Data == "link" || tok.Data == "img" || tok.Data == "iframe" {
				t.Errorf("a <%s> element", tok.Data)
			}
			for _, a := range tok.Attr {
				if a.Key == "src" || a.Key == "href" || strings.HasPrefix(a.Key, "on") {
					t.Errorf("attribute %s=%q", a.Key, a.Val)
				}
			}
			if !voidElements[tok.Data] {
				stack = append(stack, tok.Data)
			}
		case html.EndTagToken:
			if len(stack) == 0 || stack[len(stack)-1] != tok.Data {
				t.Fatalf("</%s> closes %v", tok.Data, stack)
			}
			stack = stack[:len(stack)-1]
		case html.SelfClosingTagToken:
			t.Errorf("self-closing <%s/>", tok.Data)
		}
	}
	if len(stack) != 0 {
		t.Errorf("unclosed %v", stack)
	}
	if _, err := html.Parse(bytes.NewReader(page)); err != nil {
		t.Error(err)
	}
	if bytes.Contains(page, []byte("url(")) || bytes.Contains(page, []byte("@import")) {
		t.Error("the CSS loads a resource")
	}
}

func TestHTML(t *testing.T) {
	left, right := compareSides()
	s := Summary{Timestamp: "2025-01-01T00:00:00Z", CompareWith: "deployed", DeploymentType: "customer",
		CommonDeployVars: map[string]string{"region": "<b>eu</b>", "api_token": "*****"}, ContextVars: map[string]string{"tenant": "acme"}}
	left.Items = append(left.Items, Item{Type: TypeStream, Name: `x"><script>alert(2)</script>`, Checksum: "sha256:1"})
	page, err := Compare(left, right, s).HTML()
	if err != nil {
		t.Fatal(err)
	}
	checkHTML(t, page)
	text := string(page)
	if strings.Contains(text, "<script>") || strings.Contains(text, "<b>eu") {
		t.Error("a value is not escaped")
	}
	for _, want := range []string{
		"&lt;script&gt;alert(1)&lt;/script&gt;", // the diff's text
		"&lt;b&gt;eu&lt;/b&gt;",
		"netops 1.2.0 vs deployed",
		"only in left", "By type", "pipeline: 1, blueprint: 1",
		`<h3>dashboard overview <code>dashboards/overview.yaml</code></h3>`,
		`<tr class="changed"><td class="no">2</td><td class="code l">title: &lt;script&gt;alert(1)&lt;/script&gt;</td><td class="no">2</td><td class="code r">title: Overview</td></tr>`,
		`<tr class="same"><td class="no">3</td><td class="code l">rows: 2</td><td class="no">3</td><td class="code r">rows: 2</td></tr>`,
		`<tr class="added"><td class="no"></td><td class="code l"></td><td class="no">4</td><td class="code r">extra: x</td></tr>`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// The credential's change has no texts: no diff.
	if strings.Contains(text, "<h3>credential") {
		t.Error("a diff of a credential")
	}
	if strings.Count(text, "<h3>") != 1 {
		t.Errorf("%d diffs, want 1", strings.Count(text, "<h3>"))
	}
}

func TestLineDiff(t *testing.T) {
	kinds := func(d []diffLine) string {
		var b strings.Builder
		for _, l := range d {
			b.WriteString(l.Kind[:1])
		}
		return b.String()
	}
	for _, tc := range []struct {
		a, b, want string
	}{
		{"a\nb\nc\n", "a\nb\nc\n", "sss"},
		{"a\nb\nc\n", "a\nx\nc\n", "scs"},
		{"a\nb\nc\n", "a\nc\n", "srs"},
		{"a\nc\n", "a\nb\nc\n", "sas"},
		{"", "a\nb\n", "aa"},
		{"a\nb\n", "", "rr"},
		{"x\na\ny\n", "a\nz\nw\n", "rsca"},
		{"a\r\nb\r\n", "a\nb", "ss"},
	} {
		d := lineDiff([]byte(tc.a), []byte(tc.b))
		if got := kinds(d); got != tc.want {
			t.Errorf("lineDiff(%q, %q) = %s, want %s", tc.a, tc.b, got, tc.want)
		}
		// Every line of each side is shown once, in order.
		var l, r []string
		for _, x := range d {
			if x.LeftNo > 0 {
				l = append(l, x.Left)
			}
			if x.RightNo > 0 {
				r = append(r, x.Right)
			}
		}
		if strings.Join(l, "\n") != strings.Join(splitLines([]byte(tc.a)), "\n") || strings.Join(r, "\n") != strings.Join(splitLines([]byte(tc.b)), "\n") {
			t.Errorf("lineDiff(%q, %q) lost lines: %v", tc.a, tc.b, d)
		}
	}
	// A large middle falls back to changed lines, quickly.
	var a, b strings.Builder
	for i := 0; i < 3000; i++ {
		a.WriteString("a" + strings.Repeat("x", i%7) + "\n")
		b.WriteString("b" + strings.Repeat("y", i%5) + "\n")
	}
	if d := lineDiff([]byte(a.String()), []byte(b.String())); len(d) != 3000 || d[0].Kind != lineChanged {
		t.Errorf("large diff: %d lines", len(d))
	}
}
