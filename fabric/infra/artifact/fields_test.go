package artifact

import (
	"strings"
	"testing"
)

// TestFields: a kind's fields come from its schema, in its order, nested
// ones under theirs, required ones starred.
func TestFields(t *testing.T) {
	want := `Fields (* required):
  name*         string
  description   string
  version       string
  components*   list (at least 1) of objects:
    name*       string
    type*       string
    host        string
    port        integer 1-65535
    depends_on  list of string`
	if got := Stack.Fields(); got != want {
		t.Errorf("stack fields:\n%s\nwant:\n%s", got, want)
	}
	if got := AlertRules.Fields(); !strings.Contains(got, "  realtime-alerts         list of objects:\n    name*") {
		t.Errorf("alert rules fields ($ref followed):\n%s", got)
	}
	if got := FmtTemplate.Fields(); !strings.Contains(got, "format*  ") || !strings.Contains(got, "one of text, html, markdown, json") {
		t.Errorf("fmt template fields:\n%s", got)
	}
}

// TestExamples: every kind's example is a document its schema accepts, so
// that the help never shows one that add refuses.
func TestExamples(t *testing.T) {
	for k, ex := range examples {
		d, err := Parse([]byte(ex))
		if err != nil {
			t.Errorf("%s example: %v", k.Name, err)
			continue
		}
		rs, err := k.schema()
		if err != nil {
			t.Fatal(err)
		}
		v, err := d.Decode()
		if err != nil {
			t.Fatal(err)
		}
		if err := rs.Validate(v); err != nil {
			t.Errorf("%s example: %s", k.Name, schemaMessage(err))
		}
		if k.Fields() == "" {
			t.Errorf("%s: no fields", k.Name)
		}
	}
}
