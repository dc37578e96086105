package frame

import (
	"io"
	"sync"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/klauspost/compress/zstd"
)

// zstdCodec is the zstd codec of the Parquet files the fabric reads and
// writes, in place of arrow-go's own (registered at init), for two
// costs of that one:
//   - its frames carried a checksum of their content, which the writer
//     hashed and every reader hashed again: a tenth of the time a filter
//     spent decompressing. A page's bytes are checked where they are
//     kept (an object's digest, a file system's own checks), and a
//     corrupt page still fails to decode. Files written with checksums
//     are still checked as they are read.
//   - its encoders sat in a sync.Pool, which each garbage collection
//     empties: a new encoder, and its cleared history buffer, every few
//     pages. Ours are kept, a few of them per compression level.
//
// What it writes is standard zstd (RFC 8878), and reads every frame.
type zstdCodec struct{}

func init() { compress.RegisterCodec(compress.Codecs.Zstd, zstdCodec{}) }

// zstdKept is how many idle encoders are kept per level.
const zstdKept = 4

var zstdEncoders sync.Map // zstd.EncoderLevel -> chan *zstd.Encoder

func zstdLevel(level int) zstd.EncoderLevel {
	if level == compress.DefaultCompressionLevel {
		return zstd.SpeedDefault
	}
	return zstd.EncoderLevelFromZstd(level)
}

// Decoding goes through one decoder, which runs DecodeAll calls
// concurrently. The Parquet reader hands it a buffer of the size the
// page's header declares: a page may not decode to more (a frame that
// would expand past it, a decompression bomb, is an error, not an
// allocation). zstdAnySize decodes into buffers of no declared size.
var (
	zstdDecoder = sync.OnceValue(func() *zstd.Decoder {
		return newZstdDecoder(zstd.WithDecodeAllCapLimit(true))
	})
	zstdAnySize = sync.OnceValue(func() *zstd.Decoder { return newZstdDecoder() })
)

func newZstdDecoder(opts ...zstd.DOption) *zstd.Decoder {
	d, err := zstd.NewReader(nil, append([]zstd.DOption{zstd.WithDecoderConcurrency(0)}, opts...)...)
	if err != nil {
		panic(err) // only for invalid options
	}
	return d
}

func (zstdCodec) Encode(dst, src []byte) []byte {
	return zstdCodec{}.EncodeLevel(dst, src, compress.DefaultCompressionLevel)
}

func (zstdCodec) EncodeLevel(dst, src []byte, level int) []byte {
	l := zstdLevel(level)
	v, ok := zstdEncoders.Load(l)
	if !ok {
		v, _ = zstdEncoders.LoadOrStore(l, make(chan *zstd.Encoder, zstdKept))
	}
	kept := v.(chan *zstd.Encoder)
	var e *zstd.Encoder
	select {
	case e = <-kept:
	default:
		var err error
		// Arrow-go's options, the checksum left out.
		e, err = zstd.NewWriter(nil, zstd.WithZeroFrames(true), zstd.WithEncoderLevel(l),
			zstd.WithEncoderConcurrency(1), zstd.WithAllLitEntropyCompression(true), zstd.WithEncoderCRC(false))
		if err != nil {
			panic(err) // only for invalid options
		}
	}
	out := e.EncodeAll(src, dst[:0])
	select {
	case kept <- e:
	default:
	}
	return out
}

func (zstdCodec) Decode(dst, src []byte) []byte {
	out, err := zstdCodec{}.DecodeWithError(dst, src)
	if err != nil {
		panic(err)
	}
	return out
}

// DecodeWithError decodes a page into dst, at most cap(dst) bytes when
// dst has room; a malformed page is an error.
func (zstdCodec) DecodeWithError(dst, src []byte) ([]byte, error) {
	if cap(dst) == 0 {
		return zstdAnySize().DecodeAll(src, nil)
	}
	return zstdDecoder().DecodeAll(src, dst[:0])
}

func (zstdCodec) NewReader(r io.Reader) io.ReadCloser {
	d, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return io.NopCloser(failingReader{err})
	}
	return d.IOReadCloser()
}

func (zstdCodec) NewWriter(w io.Writer) io.WriteCloser {
	e, err := zstd.NewWriter(w)
	if err != nil {
		panic(err) // only for invalid options
	}
	return e
}

func (zstdCodec) NewWriterLevel(w io.Writer, level int) (io.WriteCloser, error) {
	return zstd.NewWriter(w, zstd.WithEncoderLevel(zstdLevel(level)))
}

// CompressBound is ZSTD_COMPRESSBOUND of zstd.h.
func (zstdCodec) CompressBound(n int64) int64 {
	extra := ((128 << 10) - n) >> 11
	if n >= 128<<10 {
		extra = 0
	}
	return n + n>>8 + extra
}

// failingReader fails every read with its error.
type failingReader struct{ err error }

func (f failingReader) Read([]byte) (int, error) { return 0, f.err }
