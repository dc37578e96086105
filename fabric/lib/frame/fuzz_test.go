package frame_test

import (
	"bytes"
	"io"
	"reflect"
	"testing"

	"github.com/fabricops/fabric/fabric/lib/frame"
)

// drainBytes opens data and reads every batch, checking what a source
// promises: batches of at most the batch size, of the source's schema.
// Errors are fine; panics and hangs are not.
func drainBytes(t *testing.T, data []byte, f frame.Format, batch int) {
	src, err := frame.OpenReader(bytes.NewReader(data), f, frame.NoCompression, frame.WithBatchSize(batch))
	if err != nil {
		return
	}
	defer src.Close()
	schema := src.Schema()
	for {
		rec, err := src.Next()
		if err != nil {
			if err != io.EOF {
				if _, again := src.Next(); again == nil || again == io.EOF {
					t.Fatalf("Next after error %v = %v", err, again)
				}
			}
			return
		}
		if rec.NumRows() > int64(batch) {
			t.Fatalf("batch of %d rows, batch size %d", rec.NumRows(), batch)
		}
		if !rec.Schema().Equal(schema) {
			t.Fatalf("batch schema %v, source schema %v", rec.Schema(), schema)
		}
		for c := 0; c < int(rec.NumCols()); c++ {
			col := rec.Column(c)
			if col.Len() != int(rec.NumRows()) {
				t.Fatalf("column %d has %d values for %d rows", c, col.Len(), rec.NumRows())
			}
			if v, ok := col.(interface{ ValidateFull() error }); ok {
				if err := v.ValidateFull(); err != nil {
					t.Fatalf("column %d: %v", c, err)
				}
			}
		}
		rec.Release()
	}
}

// load reads data whole in batches of batch rows.
func load(data []byte, f frame.Format, batch int) (*frame.Frame, error) {
	src, err := frame.OpenReader(bytes.NewReader(data), f, frame.NoCompression, frame.WithBatchSize(batch))
	if err != nil {
		return nil, err
	}
	defer src.Close()
	return frame.ReadFrom(src)
}

// readWhole loads data into a Frame and renders it, exercising Row,
// String and MemBytes on whatever was read. Read in batches of 3 rows and
// in one batch, it must give the same rows, whatever the batches.
func readWhole(t *testing.T, data []byte, f frame.Format) {
	fr, err := load(data, f, 3)
	if err != nil {
		return
	}
	_ = fr.String()
	_ = fr.MemBytes()
	if fr.NumCols() > 0 {
		if g, err := fr.Sort(fr.Columns()[:1], true); err == nil {
			_ = g.String()
		}
	}
	one, err := load(data, f, 1<<20)
	if err != nil {
		// The types inferred from the first batch of 3 rows may fit the
		// rest less well than those inferred from everything, but not
		// the other way round.
		t.Fatalf("read in batches of 3 rows but not in one: %v", err)
	}
	if one.NumRows() != fr.NumRows() || !reflect.DeepEqual(one.Columns(), fr.Columns()) {
		t.Fatalf("in one batch: %d rows %q; in batches of 3: %d rows %q", one.NumRows(), one.Columns(), fr.NumRows(), fr.Columns())
	}
	if !reflect.DeepEqual(one.DTypes(), fr.DTypes()) {
		return
	}
	for i := 0; i < fr.NumRows(); i++ {
		a, b := one.Row(i), fr.Row(i)
		for c := range a {
			if !equalValue(a[c], b[c]) {
				t.Fatalf("row %d column %d: %#v in one batch, %#v in batches of 3", i, c, a[c], b[c])
			}
		}
	}
}

func FuzzReadCSV(f *testing.F) {
	for _, seed := range []string{
		"a,b\n1,2\n3,4\n",
		"a,b\r\n1.5,x\r\n,\r\n",
		"\xef\xbb\xbfa,a,\n\"q,\"\"x\"\"\",2024-01-01,true\n\"multi\nline\",2024-01-02T03:04:05Z,false\n",
		"x\n1\n2\n3\n4\n5\nnope\n",
		"a,b\n1\n",
		"a\n\"open\n",
		"d\n2024-01-01\n2024-02-30\n",
		"t\n2262-04-11T23:47:16.854775807Z\n1677-09-21T00:12:43.145224192Z\n",
		"a,b\n\"x\"y,\"\"\n\n\n1,2",
	} {
		f.Add([]byte(seed), uint8(2))
	}
	f.Fuzz(func(t *testing.T, data []byte, batch uint8) {
		drainBytes(t, data, frame.CSV, int(batch%8)+1)
		readWhole(t, data, frame.CSV)
	})
}

func FuzzReadJSON(f *testing.F) {
	for _, seed := range []string{
		`[{"a":1,"b":"x"},{"a":2.5,"c":true}]`,
		"[\n{\"a\":null},\n{\"a\":[1,{\"b\":2}]}\n]",
		`[{"d":"2024-01-01"},{"d":" 2024-01-02T00:00:00Z"},{"d":"x"}]`,
		`[{"a":1},{"a":2},{"a":3},{"b":4}]`,
		`[{"a":"\u00e9\n"}] 1`,
		`{"a":1}`,
		`[{"a":1e400}]`,
		"\xef\xbb\xbf[]",
	} {
		f.Add([]byte(seed), false, uint8(2))
	}
	for _, seed := range []string{
		"{\"a\":1,\"b\":\"x\"}\n{\"a\":2.5,\"c\":true}\n",
		"{\"a\":{\"n\":[1,2]}}\n\n{}\n",
		"{\"a\":\"\\q\"}\n",
		"{\"a\":tru}\n",
		"{\"a\":1}}\n",
		"{\"a\":\"2024-01-01\"}\n{\"a\":\"2024-01-01T00:00:00+01:00\"}\n",
		"{\"a\":-}\n{\"a\":\"\\",
	} {
		f.Add([]byte(seed), true, uint8(2))
	}
	f.Fuzz(func(t *testing.T, data []byte, lines bool, batch uint8) {
		format := frame.JSON
		if lines {
			format = frame.JSONL
		}
		drainBytes(t, data, format, int(batch%8)+1)
		readWhole(t, data, format)
	})
}
