package syslog

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxSize is the frame size limit of a Scanner made with a maxSize
// of zero or less.
const DefaultMaxSize = 64 << 10

// maxCountDigits bounds the length prefix of an octet-counted frame: a
// longer run of digits is taken for a malformed count, not a length.
const maxCountDigits = 9

// Framing errors, reported (wrapped) by Scanner.Frame for one frame.
var (
	// ErrTooLong is the error of a frame over the Scanner's maxSize.
	ErrTooLong = errors.New("syslog: frame too long")
	// ErrBadCount is the error of a frame starting with a digit whose
	// digits are not an octet count followed by a space.
	ErrBadCount = errors.New("syslog: malformed octet count")
	// ErrTruncated is the error of a frame cut short by the end of the
	// stream (or a read error).
	ErrTruncated = errors.New("syslog: stream ended inside a frame")
)

// Scanner splits a TCP syslog stream into messages, with the framing of
// RFC 6587. It decides per message, so a sender may mix the two methods:
//   - octet counting ("LEN SP MSG", RFC 6587 section 3.4.1) when a frame
//     starts with a digit;
//   - else non-transparent framing: LF ends a message, and a CR before it
//     is dropped; NUL also ends a message, as some senders use it. Empty
//     messages between terminators are skipped.
//
// A frame over maxSize bytes is reported with ErrTooLong and skipped without
// losing the frames after it: an octet-counted frame by skipping LEN bytes,
// a newline-framed one by skipping to the next LF (or NUL). A malformed
// octet count (digits not followed by a space, or more than nine digits) is
// reported with ErrBadCount, and the scanner resynchronises after the next
// LF (or NUL). A frame cut short by the end of the stream is reported with
// ErrTruncated, after which Scan returns false; but a last newline-framed
// message that only lacks its LF is taken whole, as senders that close the
// connection after their last message often send it so.
//
// A Scanner is not safe for concurrent use.
type Scanner struct {
	r        *bufio.Reader
	maxSize  int
	frame    []byte
	frameErr error
	readErr  error // the error that ended reading; io.EOF at the end of the stream
}

// NewScanner returns a Scanner reading r, with frames of at most maxSize
// bytes (DefaultMaxSize when maxSize <= 0).
func NewScanner(r io.Reader, maxSize int) *Scanner {
	if maxSize <= 0 {
		maxSize = DefaultMaxSize
	}
	return &Scanner{r: bufio.NewReader(r), maxSize: maxSize}
}

// Scan advances to the next frame, which Frame then returns. It returns
// false at the end of the stream or on a read error (see Err).
func (s *Scanner) Scan() bool {
	s.frame = s.frame[:0]
	s.frameErr = nil
	for s.readErr == nil {
		c, err := s.r.ReadByte()
		if err != nil {
			s.readErr = err
			break
		}
		switch {
		case c == '\n' || c == 0:
			continue // an empty message
		case '0' <= c && c <= '9':
			_ = s.r.UnreadByte() // cannot fail right after ReadByte
			s.scanCounted()
		default:
			_ = s.r.UnreadByte()
			s.scanLine()
		}
		if len(s.frame) > s.maxSize { // the digits of a bad count can be longer
			s.frame = s.frame[:s.maxSize]
			s.setErr(fmt.Errorf("%w: over %d bytes", ErrTooLong, s.maxSize))
		}
		if len(s.frame) > 0 || s.frameErr != nil {
			return true
		}
	}
	return false
}

// Frame returns the current frame: its message bytes, valid until the next
// call to Scan; or its framing error, wrapping ErrTooLong, ErrBadCount or
// ErrTruncated, and then the bytes are what was read of the frame (at most
// maxSize of them), for keeping the raw input.
func (s *Scanner) Frame() ([]byte, error) {
	return s.frame, s.frameErr
}

// Err returns the read error that ended scanning; nil at the end of the
// stream.
func (s *Scanner) Err() error {
	if s.readErr == io.EOF {
		return nil
	}
	return s.readErr
}

// setErr records err as the current frame's error unless it has one.
func (s *Scanner) setErr(err error) {
	if s.frameErr == nil {
		s.frameErr = err
	}
}

// endOfStream records err, which ended reading inside the current frame.
func (s *Scanner) endOfStream(err error) {
	if err == io.ErrUnexpectedEOF {
		err = io.EOF
	}
	s.readErr = err
	s.setErr(fmt.Errorf("%w after %d bytes", ErrTruncated, len(s.frame)))
}

// scanCounted reads an octet-counted frame, the next byte being a digit.
func (s *Scanner) scanCounted() {
	n := 0
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			s.endOfStream(err)
			return
		}
		if c == ' ' {
			break
		}
		if c < '0' || c > '9' || len(s.frame) == maxCountDigits {
			if c < '0' || c > '9' {
				s.setErr(fmt.Errorf("%w: %q followed by %q, not a space", ErrBadCount, s.frame, c))
			} else {
				s.setErr(fmt.Errorf("%w: more than %d digits", ErrBadCount, maxCountDigits))
			}
			_ = s.r.UnreadByte()
			s.scanLine() // the rest of the frame up to LF, to resynchronise
			return
		}
		s.frame = append(s.frame, c) // kept as the raw input of a bad count
		n = n*10 + int(c-'0')
	}

	keep := min(n, s.maxSize) // n == 0 gives an empty message, skipped
	if cap(s.frame) < keep {
		s.frame = make([]byte, keep)
	}
	s.frame = s.frame[:keep]
	got, err := io.ReadFull(s.r, s.frame)
	s.frame = s.frame[:got]
	if err != nil {
		s.endOfStream(err)
		return
	}
	if n > keep {
		s.setErr(fmt.Errorf("%w: octet count %d over %d", ErrTooLong, n, s.maxSize))
		if _, err := s.r.Discard(n - keep); err != nil {
			s.readErr = err // the frame keeps its ErrTooLong
		}
	}
}

// scanLine reads the rest of a newline-framed frame, appending it to
// s.frame up to maxSize bytes.
func (s *Scanner) scanLine() {
	overflow := false
	for {
		if _, err := s.r.Peek(1); err != nil {
			// A last message without its LF, the sender having closed the
			// connection: taken whole (senders often end so).
			if err == io.EOF && len(s.frame) > 0 && s.frameErr == nil && !overflow {
				s.readErr = io.EOF
				break
			}
			s.endOfStream(err)
			return
		}
		buf, _ := s.r.Peek(s.r.Buffered())
		end := indexTerminator(buf)
		chunk := buf
		if end >= 0 {
			chunk = buf[:end]
		}
		// Keep one byte over maxSize, which may be a CR to drop.
		room := max(s.maxSize+1-len(s.frame), 0)
		if len(chunk) > room {
			chunk, overflow = chunk[:room], true
		}
		s.frame = append(s.frame, chunk...)
		if end >= 0 {
			_, _ = s.r.Discard(end + 1) // buffered: cannot fail
			break
		}
		_, _ = s.r.Discard(len(buf))
	}
	if !overflow && len(s.frame) > 0 && s.frame[len(s.frame)-1] == '\r' {
		s.frame = s.frame[:len(s.frame)-1]
	}
	if overflow || len(s.frame) > s.maxSize {
		s.frame = s.frame[:s.maxSize]
		s.setErr(fmt.Errorf("%w: message over %d bytes", ErrTooLong, s.maxSize))
	}
}

// indexTerminator returns the index of the first LF or NUL in b, or -1.
func indexTerminator(b []byte) int {
	for i, c := range b {
		if c == '\n' || c == 0 {
			return i
		}
	}
	return -1
}
