package cfxarrow

import (
	"slices"
	"testing"
)

func TestFilterGet(t *testing.T) {
	f := fixtureFrame(t)
	q := MustParse("region = 'north' GET host as 'Host Name', cpu, id")
	out, err := q.Filter(splitFrame(f, 1, 4))
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Columns(); !slices.Equal(got, []string{"Host Name", "cpu", "id"}) {
		t.Fatalf("columns %v", got)
	}
	if out.NumRows() != 2 || out.Row(0)[0] != "web-1" || out.Row(1)[1] != 75.25 || out.Row(1)[2] != int64(5) {
		t.Fatalf("rows %v %v", out.Row(0), out.Row(1))
	}
	// * with GET keeps every row, projected; an empty match keeps the schema.
	all, err := MustParse("* GET `id`").Filter(f)
	if err != nil || all.NumRows() != 5 || all.NumCols() != 1 {
		t.Fatalf("* GET id: %v %v", all, err)
	}
	none, err := MustParse("region = 'nowhere' GET id, host").Filter(f)
	if err != nil || none.NumRows() != 0 || !slices.Equal(none.Columns(), []string{"id", "host"}) {
		t.Fatalf("no match: %v %v", none, err)
	}
	// The filtered frame keeps nulls and every type.
	nulls, err := MustParse("id >= 3").Filter(f)
	if err != nil {
		t.Fatal(err)
	}
	if got := nulls.Row(1); got[1] != nil || got[2] != nil || got[4] != nil || got[5] != nil || got[7] != "" {
		t.Fatalf("row 4 %v", got)
	}
	if got := nulls.Row(0); got[1] != "db-1" || got[3] != int64(5432) || got[4] != true {
		t.Fatalf("row 3 %v", got)
	}
}
