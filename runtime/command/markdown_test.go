package command

import (
	"strings"
	"testing"

	"go.starlark.net/starlark"
)

func TestMarkdownEscapes(t *testing.T) {
	tests := []struct {
		fn       func(string) string
		name, in string
		want     string
	}{
		{escapeText, "plain", "List datasets.", "List datasets."},
		{escapeText, "emphasis", "*leader* and _x_", `\*leader\* and \_x\_`},
		{escapeText, "intraword underscore", "mem_size_mb YYYY_MM_DD_N", "mem_size_mb YYYY_MM_DD_N"},
		{escapeText, "code and html", "`x` <b> [link] a~b", "\\`x\\` \\<b> \\[link\\] a\\~b"},
		{escapeText, "backslash", `with \" escapes`, `with \\" escapes`},
		{escapeLine, "list marker", "- item", `\- item`},
		{escapeLine, "flag at line start", "--pipetype, else", `\--pipetype, else`},
		{escapeLine, "heading", "## comments", `\## comments`},
		{escapeLine, "ordered list", "2. second", `2\. second`},
		{escapeLine, "a number", "2026 was", "2026 was"},
		{anchor, "words", "dataset get", "dataset-get"},
		{anchor, "hyphens", "bot-package generate", "bot-package-generate"},
		{anchor, "punctuation", "Run: it!", "run-it"},
		{cell, "pipe", "a | b\nc", `a \| b c`},
		{code, "backtick", "a`b", "`` a`b ``"},
		{code, "empty", "", ""},
	}
	for _, tt := range tests {
		if got := tt.fn(tt.in); got != tt.want {
			t.Errorf("%s: %q -> %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
}

func TestMarkdownText(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"one paragraph", "Get a book.\nOr two.", "Get a book.\nOr two.\n"},
		{"paragraphs", "One.\n\nTwo *b*.", "One.\n\nTwo \\*b\\*.\n"},
		{"code block", "Form:\n\n    @dm:empty\n      --> @dm:save\n\nEnd.",
			"Form:\n\n```text\n@dm:empty\n  --> @dm:save\n```\n\nEnd.\n"},
	}
	for _, tt := range tests {
		if got := markdownText(tt.in); got != tt.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tt.name, got, tt.want)
		}
	}
}

func TestMarkdown(t *testing.T) {
	spec := completionSpec()
	cmds := append(spec.Commands, &Command{Name: "shelf put", Help: "Put a book.", Examples: []string{"client shelf put --n 1"},
		Flags: []*Flag{{Name: "n", Kind: Int, Required: true, Help: "How many\nbooks | shelves."}, {Name: "ratio", Kind: Float, Default: starlark.Float(0.5)}}})
	doc := Markdown("client", cmds)
	tests := []struct{ name, want string }{
		{"title", "# client command reference\n"},
		{"index row", "| [`library get`](#library-get) | Get a book. |\n"},
		{"index sorted", "| [`cat`](#cat) | Print files. |\n| [`jobs`](#jobs) |"},
		{"section", "\n## library get\n\n```text\nclient library get --name TEXT [flags]\n```\n\nGet a book.\nMore.\n"},
		{"flag table", "| Flag | Type | Default | Choices | Required | Description |\n| --- | --- | --- | --- | --- | --- |\n| `--name TEXT` | str |  |  | yes | Book name. |\n"},
		{"metavar", "| `--tofile FILE` | str |  |  |  | Write it \\[here\\]. |\n"},
		{"choices and default", "| `--format` | str | `csv` | `csv`, `it's` |  |  |\n"},
		{"deprecated alias with value", "Deprecated aliases:\n\n- `--json`: use `--format csv` instead.\n"},
		{"deprecated alias", "- `--group`: use `--site` instead.\n- `--old-json`: use `--format json` instead.\n"},
		{"repeatable", "| `--pod-ids TEXT...` | str (repeatable) |"},
		{"int default", "| `--wait INTEGER` | int | `30` |"},
		{"float default", "| `--ratio FLOAT` | float | `0.5` |"},
		{"bool", "| `--json` | bool |  |  |  |  |\n"},
		{"one line cell", "| `--n INTEGER` | int |  |  | yes | How many books \\| shelves. |\n"},
		{"rules", "Only one of `--infra` or `--apps` may be given.\nOne of `--pod-ids` or `--site` is required.\n"},
		{"arguments", "| Argument | Type | Default | Choices | Required | Description |\n| --- | --- | --- | --- | --- | --- |\n| `{plain,fancy}` | str |  | `plain`, `fancy` |  |  |\n| `FILE` | str (repeatable) |"},
		{"examples", "Examples:\n\n```sh\nclient shelf put --n 1\n```\n"},
	}
	for _, tt := range tests {
		if !strings.Contains(doc, tt.want) {
			t.Errorf("%s: the reference lacks\n%s\n--- reference:\n%s", tt.name, tt.want, doc)
		}
	}
	if strings.Index(doc, "## cat") > strings.Index(doc, "## shelf put") {
		t.Errorf("commands are not sorted by name")
	}
}
