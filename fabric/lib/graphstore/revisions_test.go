package graphstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
)

// TestPreconditionCAS: writers that each add one to a counter by
// compare-and-swap (read the document, write it back with If-Match of
// the revision read, read again on a conflict) lose no increment: the
// check and the write are one step under the store's lock, so of two
// writers that read the same revision exactly one writes.
func TestPreconditionCAS(t *testing.T) {
	s := openCollection(t)
	if _, err := s.Insert("d", "c", []any{map[string]any{"_key": "n", "n": json.Number("0")}}, OverwriteConflict, true, true); err != nil {
		t.Fatal(err)
	}
	const writers, each = 8, 12
	var wg sync.WaitGroup
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for done := 0; done < each; {
				data, err := s.Document("d", "c", "n")
				if err != nil {
					t.Error(err)
					return
				}
				d, _ := DecodeDoc(data)
				n, _ := strconv.Atoi(string(d["n"].(json.Number)))
				res, err := s.ModifyIf("d", "c", []any{map[string]any{"_key": "n", "n": n + 1}}, false, true, true, Precondition{IfMatch: d["_rev"].(string)})
				if err != nil {
					t.Error(err)
					return
				}
				switch {
				case res[0].Err == nil:
					done++
				case errors.Is(res[0].Err, ErrConflict):
					if res[0].Rev == d["_rev"] || res[0].Key != "n" || res[0].ID != "c/n" {
						t.Errorf("a conflict's result names the revision the writer gave: %+v", res[0])
					}
				default:
					t.Error(res[0].Err)
					return
				}
			}
		}()
	}
	wg.Wait()
	data, _ := s.Document("d", "c", "n")
	d, _ := DecodeDoc(data)
	if got := string(d["n"].(json.Number)); got != strconv.Itoa(writers*each) {
		t.Errorf("counter %s after %d increments: an increment was lost", got, writers*each)
	}
}

// TestPreconditionModel: a random run of replaces, updates, removes and
// overwriting inserts over a few keys, each with a revision precondition
// that is the current revision, a stale one or none, and an external
// version higher, equal, lower or absent, matches a model of what
// ArangoDB does: a failed precondition changes nothing, and a stale
// version writes nothing but answers the stored document.
func TestPreconditionModel(t *testing.T) {
	s := openCollection(t)
	type state struct {
		rev, old string // current and some earlier revision
		ver      int
		exists   bool
	}
	model := map[string]*state{}
	keys := []string{"a", "b", "c"}
	r := rand.New(rand.NewPCG(29, 2))
	for step := range 300 {
		k := keys[r.IntN(len(keys))]
		st := model[k]
		if st == nil {
			st = &state{}
			model[k] = st
		}
		var pre Precondition
		revKind := r.IntN(3) // 0 none, 1 current, 2 stale
		want := ""
		switch revKind {
		case 1:
			want = st.rev
		case 2:
			want = st.old
			if want == "" || want == st.rev {
				want = "_bogus"
			}
		}
		viaBody := r.IntN(2) == 0
		if want != "" {
			if viaBody {
				pre.Revs = true
			} else {
				pre.IfMatch = want
			}
		}
		ver := max(0, st.ver+r.IntN(3)-1) // lower, equal, higher
		versioned := r.IntN(2) == 0
		if versioned {
			pre.VersionAttribute = "v"
		}
		item := map[string]any{"_key": k, "v": ver, "step": step}
		if pre.Revs {
			item["_rev"] = want
		}
		op := r.IntN(4)
		var res []Result
		var err error
		switch op {
		case 0:
			res, err = s.ModifyIf("d", "c", []any{item}, true, true, true, pre)
		case 1:
			res, err = s.ModifyIf("d", "c", []any{item}, false, true, true, pre)
		case 2:
			pre.VersionAttribute = ""
			res, err = s.RemoveIf("d", "c", []any{item}, pre)
		case 3:
			res, err = s.InsertIf("d", "c", []any{item}, OverwriteReplace, true, true, pre)
		}
		if err != nil {
			t.Fatal(err)
		}
		got := res[0]
		ctx := fmt.Sprintf("step %d op %d key %s %+v %+v", step, op, k, pre, *st)
		switch {
		case !st.exists && op != 3:
			if !errors.Is(got.Err, ErrDocumentNotFound) {
				t.Fatalf("%s: %+v, want not found", ctx, got)
			}
		case !st.exists: // a new key: written whatever the precondition
			if got.Err != nil {
				t.Fatalf("%s: %v", ctx, got.Err)
			}
			st.exists, st.old, st.rev, st.ver = true, st.rev, got.Rev, ver
		case want != "" && want != st.rev:
			if !errors.Is(got.Err, ErrConflict) || got.Rev != st.rev {
				t.Fatalf("%s: %+v, want a conflict naming %s", ctx, got, st.rev)
			}
		case op != 2 && pre.VersionAttribute != "" && ver <= st.ver:
			if got.Err != nil || got.Rev != st.rev || got.OldRev != st.rev || got.New == nil {
				t.Fatalf("%s: %+v, want the stored document unchanged", ctx, got)
			}
		case op == 2:
			if got.Err != nil {
				t.Fatalf("%s: %v", ctx, got.Err)
			}
			st.exists, st.old, st.rev = false, st.rev, ""
		default:
			if got.Err != nil || got.OldRev != st.rev || got.Rev == st.rev {
				t.Fatalf("%s: %+v", ctx, got)
			}
			st.old, st.rev, st.ver = st.rev, got.Rev, ver
		}
		// The store holds what the model says.
		data, err := s.Document("d", "c", k)
		if !st.exists {
			if !errors.Is(err, ErrDocumentNotFound) {
				t.Fatalf("%s: document still there: %s %v", ctx, data, err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		d, _ := DecodeDoc(data)
		if d["_rev"] != st.rev || string(d["v"].(json.Number)) != strconv.Itoa(st.ver) {
			t.Fatalf("%s: stored %s", ctx, data)
		}
	}
}

// TestPreconditionBulk: in a bulk, each document fails or passes its own
// _rev check; the ones that pass are written, the others stay as they
// were.
func TestPreconditionBulk(t *testing.T) {
	s := openCollection(t)
	if _, err := s.Insert("d", "c", []any{map[string]any{"_key": "a"}, map[string]any{"_key": "b"}, map[string]any{"_key": "c"}}, OverwriteConflict, true, true); err != nil {
		t.Fatal(err)
	}
	ra, rb, rc := res0rev(t, s, "a"), res0rev(t, s, "b"), res0rev(t, s, "c")
	res, err := s.ModifyIf("d", "c", []any{
		map[string]any{"_key": "a", "_rev": "_stale", "x": 1},
		map[string]any{"_key": "b", "_rev": rb, "x": 1},
		map[string]any{"_key": "c", "x": 1},
	}, false, true, true, Precondition{Revs: true})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(res[0].Err, ErrConflict) || res[0].Rev != ra || res[1].Err != nil || res[2].Err != nil {
		t.Fatalf("results %+v", res)
	}
	if res0rev(t, s, "a") != ra || res0rev(t, s, "b") == rb || res0rev(t, s, "c") == rc {
		t.Error("the bulk wrote the failed document or missed a passing one")
	}
	res, err = s.RemoveIf("d", "c", []any{map[string]any{"_key": "a", "_rev": "_stale"}, "b", map[string]any{"_key": "c", "_rev": res[2].Rev}}, Precondition{Revs: true})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(res[0].Err, ErrConflict) || res[1].Err != nil || res[2].Err != nil {
		t.Fatalf("remove results %+v", res)
	}
	if keys, _ := s.Keys("d", "c"); len(keys) != 1 || keys[0] != "a" {
		t.Errorf("left %v, want [a]", keys)
	}
	checkCount(t, s)
}

// TestVersionOf: external versions are numbers that are not negative,
// rounded down.
func TestVersionOf(t *testing.T) {
	for _, c := range []struct {
		v    any
		want uint64
		ok   bool
	}{
		{json.Number("23"), 23, true},
		{json.Number("23.9"), 23, true},
		{json.Number("2e3"), 2000, true},
		{json.Number("18446744073709551615"), math.MaxUint64, true},
		{json.Number("-1"), 0, false},
		{json.Number("-0.5"), 0, false},
		{float64(7.5), 7, true},
		{3, 3, true},
		{int64(-3), 0, false},
		{"7", 0, false},
		{nil, 0, false},
		{true, 0, false},
	} {
		got, ok := versionOf(c.v)
		if got != c.want || ok != c.ok {
			t.Errorf("versionOf(%#v) = %d, %v; want %d, %v", c.v, got, ok, c.want, c.ok)
		}
	}
}

// FuzzVersionOf: any number text is read without a panic, and a
// non-negative one as its value rounded down.
func FuzzVersionOf(f *testing.F) {
	for _, s := range []string{"0", "1.5", "-2", "1e308", "99999999999999999999", "abc", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := versionOf(json.Number(s))
		x, err := strconv.ParseFloat(s, 64)
		if err != nil && !ok {
			return
		}
		if ok && (x < 0 || math.IsNaN(x)) {
			t.Fatalf("%q read as version %d", s, got)
		}
		if ok && x < 1<<53 && float64(got) != math.Floor(x) {
			t.Fatalf("%q read as %d", s, got)
		}
	})
}
