package graphstore

import (
	"errors"
	"testing"
)

// TestTxnAllOrNothing: a transaction's writes to two collections are seen
// by it alone until it commits, then by everyone; aborted, they are gone;
// its documents are locked against other writers meanwhile.
func TestTxnAllOrNothing(t *testing.T) {
	s := openCollection(t)
	if _, err := s.CreateCollection("d", "c2", DocumentCollection, false, false, KeyOptions{AllowUserKeys: true, Type: "traditional"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Insert("d", "c", []any{Doc{"_key": "old", "v": 1}}, OverwriteConflict, true, true); err != nil {
		t.Fatal(err)
	}
	for _, commit := range []bool{false, true} {
		tx, err := s.Begin()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.InsertIf("d", "c", []any{Doc{"_key": "a"}}, OverwriteConflict, true, true, Precondition{}); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.InsertIf("d", "c2", []any{Doc{"_key": "b"}}, OverwriteConflict, true, true, Precondition{}); err != nil {
			t.Fatal(err)
		}
		if res, err := tx.ModifyIf("d", "c", []any{Doc{"_key": "old", "v": 2}}, false, true, true, Precondition{}); err != nil || res[0].Err != nil {
			t.Fatal(err, res)
		}
		if _, err := tx.Document("d", "c2", "b"); err != nil {
			t.Errorf("the transaction does not see its own write: %v", err)
		}
		if _, err := s.Document("d", "c2", "b"); !errors.Is(err, ErrDocumentNotFound) {
			t.Errorf("another reader sees an uncommitted write: %v", err)
		}
		if _, err := s.Modify("d", "c", []any{Doc{"_key": "old", "v": 3}}, false, true, true); !errors.Is(err, ErrTxnLocked) {
			t.Errorf("a write outside the transaction to a document it wrote: %v", err)
		}
		tx2, _ := s.Begin()
		if _, err := tx2.RemoveIf("d", "c", []any{"a"}, Precondition{}); !errors.Is(err, ErrTxnLocked) {
			t.Errorf("another transaction's write to a locked document: %v", err)
		}
		tx2.Abort()
		if commit {
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
		} else {
			tx.Abort()
		}
		for _, k := range [][2]string{{"c", "a"}, {"c2", "b"}} {
			_, err := s.Document("d", k[0], k[1])
			if commit != (err == nil) {
				t.Errorf("commit %v: %s/%s: %v", commit, k[0], k[1], err)
			}
		}
		n, _ := s.Count("d", "c2")
		if want := map[bool]int64{false: 0, true: 1}[commit]; n != want {
			t.Errorf("commit %v: count %d, want %d", commit, n, want)
		}
		if err := tx.Commit(); !errors.Is(err, ErrTxnDone) {
			t.Errorf("a second end: %v", err)
		}
		// The locks are gone.
		if _, err := s.Modify("d", "c", []any{Doc{"_key": "old", "v": 4}}, false, true, true); err != nil {
			t.Errorf("after the transaction: %v", err)
		}
	}
	if got := scanKeys(t, s); len(got) != 2 {
		t.Errorf("scan after commit: %v", got)
	}
}
