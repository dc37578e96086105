package frame

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/klauspost/compress/zstd"
)

// TestZstdCodec: pages round-trip through the codec the fabric
// registers, its frames carry no checksum, frames written with one
// (other writers', earlier files) still decode and are checked, a
// corrupt page is an error, not a panic, and so is one that decodes to
// more than the reader's buffer holds.
func TestZstdCodec(t *testing.T) {
	codec, err := compress.GetCodec(compress.Codecs.Zstd)
	if err != nil {
		t.Fatal(err)
	}
	if _, ours := codec.(zstdCodec); !ours {
		t.Fatalf("the registered zstd codec is %T", codec)
	}
	page := bytes.Repeat([]byte("request 42 handled in 7 ms; "), 4000)
	enc := codec.EncodeLevel(nil, page, 1)
	var h zstd.Header
	if err := h.Decode(enc); err != nil || h.HasCheckSum {
		t.Fatalf("frame header %+v, %v: want no checksum", h, err)
	}
	dec, err := compress.Decode(codec, make([]byte, 0, len(page)), enc)
	if err != nil || !bytes.Equal(dec, page) {
		t.Fatalf("round trip: %v", err)
	}

	w, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(true))
	if err != nil {
		t.Fatal(err)
	}
	withSum := w.EncodeAll(page, nil)
	if dec, err := compress.Decode(codec, nil, withSum); err != nil || !bytes.Equal(dec, page) {
		t.Fatalf("a frame with a checksum: %v", err)
	}
	bad := bytes.Clone(withSum)
	bad[len(bad)-1] ^= 0xff // the checksum
	if _, err := compress.Decode(codec, nil, bad); err == nil {
		t.Error("a wrong checksum decoded")
	}
	if _, err := compress.Decode(codec, nil, enc[:len(enc)/2]); err == nil {
		t.Error("a truncated page decoded")
	}
	// A page that decodes to more than its header declares (the buffer
	// the reader gives) is refused, not grown into.
	if out, err := compress.Decode(codec, make([]byte, 0, len(page)/10), enc); err == nil {
		t.Errorf("a page of %d bytes decoded into a buffer of %d: %d bytes", len(page), len(page)/10, len(out))
	}
}
