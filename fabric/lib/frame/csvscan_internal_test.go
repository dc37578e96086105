package frame

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
)

// TestSplitterBoundsChunks checks that chunks after the first stop at
// chunkBytes on a row boundary, and that the buffer size settles instead
// of creeping up chunk after chunk.
func TestSplitterBoundsChunks(t *testing.T) {
	var b bytes.Buffer
	wide := strings.Repeat("x", 1000)
	const rows = 20000
	for i := 0; i < rows; i++ {
		fmt.Fprintf(&b, "%d,%s\n", i, wide)
	}
	sp := newSplitter(&b)
	total, chunks, sizes := 0, 0, map[int]bool{}
	for {
		c, err := sp.next(DefaultBatchSize, chunkBytes)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(c.data) > chunkBytes+1100 {
			t.Fatalf("chunk %d holds %d bytes, more than %d and a row", chunks, len(c.data), chunkBytes)
		}
		if c.data[len(c.data)-1] != '\n' {
			t.Fatalf("chunk %d does not end on a row boundary", chunks)
		}
		if want := fmt.Sprintf("%d,", total); !bytes.HasPrefix(c.data, []byte(want)) {
			t.Fatalf("chunk %d starts with %.10q, want row %d", chunks, c.data, total)
		}
		total += bytes.Count(c.data, []byte{'\n'})
		chunks++
		sizes[sp.size] = true
		sp.recycle(c.data)
	}
	if total != rows {
		t.Fatalf("read %d rows, want %d", total, rows)
	}
	if chunks < 4 {
		t.Fatalf("%d chunks: the byte bound did not cut", chunks)
	}
	if len(sizes) > 2 {
		t.Fatalf("the buffer size kept changing: %v", sizes)
	}
}
