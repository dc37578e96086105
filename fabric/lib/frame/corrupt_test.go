package frame_test

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/fabricops/fabric/fabric/lib/frame"
)

// readCorrupt reads a Parquet file of any bytes to its end, as a dataset
// add or a pack reads one (mode 0), as a lazy read of every column does
// (1), and as a filtered scan does (2): an error or batches, the arrays
// of which are whole (text may be any bytes). A panic fails the caller.
func readCorrupt(t *testing.T, data []byte, mode int) error {
	t.Helper()
	var src frame.Source
	var err error
	switch mode % 3 {
	case 0:
		src, err = frame.OpenReader(bytes.NewReader(data), frame.Parquet, frame.NoCompression)
	case 1:
		src, err = frame.OpenParquet(bytes.NewReader(data), "corrupt.parquet", frame.Scan{})
	default:
		src, err = frame.OpenParquet(bytes.NewReader(data), "corrupt.parquet", frame.Scan{
			WhereColumns: []string{"k", "low", "s"},
			Where: func(r arrow.Record) ([]int32, bool, error) {
				var sel []int32
				for i := range int32(r.NumRows()) {
					if i%3 == 0 {
						sel = append(sel, i)
					}
				}
				return sel, false, nil
			},
		})
	}
	if err != nil {
		return err
	}
	defer src.Close()
	for {
		rec, err := src.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := array.ValidateRecordFull(rec); err != nil && !strings.Contains(err.Error(), "utf8") {
			t.Fatalf("an invalid batch from a corrupt file: %v", err)
		}
		rec.Release()
	}
}

// corruptBase is a small Parquet file of every column kind, its pages
// uncompressed so that a changed byte reaches the decoders.
func corruptBase(t testing.TB) []byte {
	path := writeScanFile(t.(*testing.T), 1500, true, parquet.WithCompression(compress.Codecs.Uncompressed))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestCorruptParquetIsAnError: a Parquet file with bytes changed in its
// pages (a tenant's pack or dataset file) is read to an error or to whole
// batches, never to a panic. Arrow's reader panics on some such files
// (a page header without its body, a column shorter than its row
// group): in a pod, that was the whole fabric's process.
func TestCorruptParquetIsAnError(t *testing.T) {
	base := corruptBase(t)
	rng := rand.New(rand.NewPCG(3, 4))
	failed := 0
	for n := range 900 {
		data := append([]byte(nil), base...)
		for range 1 + rng.IntN(4) {
			data[4+rng.IntN(len(data)-8)] ^= byte(1 + rng.IntN(255))
		}
		if readCorrupt(t, data, n) != nil {
			failed++
		}
	}
	if failed == 0 {
		t.Fatal("no corrupt file failed: the bytes changed were not read")
	}
}

// FuzzParquetCorrupt changes bytes of a Parquet file anywhere (pages,
// footer) and reads it every way the fabric does.
func FuzzParquetCorrupt(f *testing.F) {
	f.Add(uint32(100), uint8(0x40), uint32(2000), uint8(1), uint8(0))
	f.Add(uint32(4000), uint8(0xff), uint32(9000), uint8(7), uint8(1))
	f.Add(uint32(30000), uint8(0x01), uint32(31000), uint8(0x80), uint8(2))
	var base []byte
	f.Fuzz(func(t *testing.T, at1 uint32, x1 uint8, at2 uint32, x2 uint8, mode uint8) {
		if base == nil {
			base = corruptBase(t)
		}
		data := append([]byte(nil), base...)
		data[int(at1)%len(data)] ^= x1
		data[int(at2)%len(data)] ^= x2
		_ = readCorrupt(t, data, int(mode))
	})
}
