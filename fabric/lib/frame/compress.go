package frame

import (
	"compress/bzip2"
	"fmt"
	"io"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// decompress wraps r to undo compression c. The returned closer releases
// the decompressor's resources (it does not close r).
func decompress(r io.Reader, c Compression) (io.Reader, func(), error) {
	switch c {
	case NoCompression:
		return r, func() {}, nil
	case Gzip:
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, nil, fmt.Errorf("gzip: %w", err)
		}
		return zr, func() { zr.Close() }, nil
	case Bzip2:
		return bzip2.NewReader(r), func() {}, nil
	case XZ:
		zr, err := xz.NewReader(r)
		if err != nil {
			return nil, nil, fmt.Errorf("xz: %w", err)
		}
		return zr, func() {}, nil
	case Zstd:
		zr, err := zstd.NewReader(r)
		if err != nil {
			return nil, nil, fmt.Errorf("zstd: %w", err)
		}
		return zr, zr.Close, nil
	}
	return nil, nil, fmt.Errorf("unknown compression %q", c)
}

// nopWriteCloser is an io.WriteCloser whose Close does nothing.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// compressWriter wraps w to apply compression c. Closing the result flushes the
// compressor but does not close w.
func compressWriter(w io.Writer, c Compression) (io.WriteCloser, error) {
	switch c {
	case NoCompression:
		return nopWriteCloser{w}, nil
	case Gzip:
		return gzip.NewWriter(w), nil
	case Bzip2:
		return nil, fmt.Errorf("writing bzip2 is not supported: use .gz, .xz or .zst")
	case XZ:
		zw, err := xz.NewWriter(w)
		if err != nil {
			return nil, fmt.Errorf("xz: %w", err)
		}
		return zw, nil
	case Zstd:
		zw, err := zstd.NewWriter(w)
		if err != nil {
			return nil, fmt.Errorf("zstd: %w", err)
		}
		return zw, nil
	}
	return nil, fmt.Errorf("unknown compression %q", c)
}
