package graphdb

import (
	"compress/gzip"
	"compress/zlib"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// decodeBody makes a request body sent compressed (Content-Encoding gzip
// or deflate, as go-driver's compression sends it; "deflate" is the zlib
// format, as HTTP names it) read as its plain text, at most MaxInflated
// bytes of it (a body that expands further fails as unreadable). An
// encoding it does not know is ArangoDB's 415.
func decodeBody(r *http.Request) *apiError {
	enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding")))
	var body io.ReadCloser
	var err error
	switch enc {
	case "", "identity":
		return nil
	case "gzip", "x-gzip":
		body, err = gzip.NewReader(r.Body)
	case "deflate":
		body, err = zlib.NewReader(r.Body)
	default:
		return newError(415, 415, "unsupported Content-Encoding '"+enc+"': gzip, deflate or none")
	}
	if err != nil {
		if err == io.EOF { // an empty body
			return nil
		}
		return newError(400, 400, "cannot read the "+enc+" request body: "+err.Error())
	}
	r.Body = &inflated{ReadCloser: body, left: MaxInflated}
	r.Header.Del("Content-Encoding")
	return nil
}

// MaxInflated bounds the plain text of a compressed request body: a few
// kilobytes of deflated zeros could otherwise make the server hold as
// much as a plain body may be (maxBody).
const MaxInflated = 64 << 20

// inflated is a decompressing body that fails once it has given more
// than its share.
type inflated struct {
	io.ReadCloser
	left int64
}

func (b *inflated) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, errInflated
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

var errInflated = errors.New("the compressed request body expands past " + strconv.Itoa(MaxInflated>>20) + " MB")
