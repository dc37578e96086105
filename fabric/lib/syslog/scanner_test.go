package syslog

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// scanned is one frame a Scanner returns: its bytes and, for a framing
// error, the sentinel error it wraps.
type scanned struct {
	frame string
	err   error
}

// scanTests are TCP streams and the frames a Scanner splits them into. Their
// inputs also seed FuzzScanner.
var scanTests = []struct {
	name    string
	in      string
	maxSize int
	want    []scanned
}{
	{
		name: "octet counted",
		in:   "5 hello11 hello\nworld3 <1>",
		want: []scanned{{frame: "hello"}, {frame: "hello\nworld"}, {frame: "<1>"}},
	},
	{
		name: "octet count with leading zeros and LF after frames",
		in:   "05 hello\n5 world\n",
		want: []scanned{{frame: "hello"}, {frame: "world"}},
	},
	{
		name: "zero count is an empty message",
		in:   "0 5 hello",
		want: []scanned{{frame: "hello"}},
	},
	{
		name: "newline framed",
		in:   "<13>hello\n<14>world\n",
		want: []scanned{{frame: "<13>hello"}, {frame: "<14>world"}},
	},
	{
		name: "CRLF",
		in:   "<13>hello\r\n<14>world\r\n<15>a\rb\n",
		want: []scanned{{frame: "<13>hello"}, {frame: "<14>world"}, {frame: "<15>a\rb"}},
	},
	{
		name: "NUL terminated",
		in:   "<13>hello\x00<14>world\x00",
		want: []scanned{{frame: "<13>hello"}, {frame: "<14>world"}},
	},
	{
		name: "empty messages skipped",
		in:   "\n\n\r\n<13>hello\n\x00\n",
		want: []scanned{{frame: "<13>hello"}},
	},
	{
		name: "mixed",
		in:   "5 hello<13>line\n3 abc\n<14>last\x0010 0123456789",
		want: []scanned{{frame: "hello"}, {frame: "<13>line"}, {frame: "abc"}, {frame: "<14>last"}, {frame: "0123456789"}},
	},
	{
		name: "line longer than the read buffer",
		in:   "<13>" + strings.Repeat("x", 10000) + "\n<14>next\n",
		want: []scanned{{frame: "<13>" + strings.Repeat("x", 10000)}, {frame: "<14>next"}},
	},
	{
		name:    "exactly maxSize",
		in:      "8 12345678abcdefgh\r\n",
		maxSize: 8,
		want:    []scanned{{frame: "12345678"}, {frame: "abcdefgh"}},
	},
	{
		name:    "oversize octet counted, then good frames",
		in:      "20 aaaaaaaaaaaaaaaaaaaa5 hello<13>line\n",
		maxSize: 8,
		want:    []scanned{{frame: "aaaaaaaa", err: ErrTooLong}, {frame: "hello"}, {frame: "<13>line"}},
	},
	{
		name:    "oversize newline framed, then good frames",
		in:      "<13>aaaaaaaaaaaaaaa\n5 hello<13>b\r\n<13>cccccccccccc\x00<14>d\n",
		maxSize: 8,
		want: []scanned{
			{frame: "<13>aaaa", err: ErrTooLong}, {frame: "hello"}, {frame: "<13>b"},
			{frame: "<13>cccc", err: ErrTooLong}, {frame: "<14>d"},
		},
	},
	{
		name:    "digits then CRLF over maxSize is a malformed count",
		in:      "123456789\r\n<1>ok\n",
		maxSize: 8,
		want:    []scanned{{frame: "12345678", err: ErrBadCount}, {frame: "<1>ok"}},
	},
	{
		name:    "one byte over maxSize",
		in:      "<1>456789\r\n<1>ok\n",
		maxSize: 8,
		want:    []scanned{{frame: "<1>45678", err: ErrTooLong}, {frame: "<1>ok"}},
	},
	{
		name: "malformed count, then good frames",
		in:   "12x34 junk\n<13>hello\n5 world",
		want: []scanned{{frame: "12x34 junk", err: ErrBadCount}, {frame: "<13>hello"}, {frame: "world"}},
	},
	{
		name: "count followed by LF",
		in:   "123\n<13>hello\n",
		want: []scanned{{frame: "123", err: ErrBadCount}, {frame: "<13>hello"}},
	},
	{
		name: "count of too many digits",
		in:   "1234567890 x\n5 hello",
		want: []scanned{{frame: "1234567890 x", err: ErrBadCount}, {frame: "hello"}},
	},
	{
		name:    "malformed count longer than maxSize",
		in:      "12345678x\n5 hello",
		maxSize: 5,
		want:    []scanned{{frame: "12345", err: ErrBadCount}, {frame: "hello"}},
	},
	{
		name: "EOF inside an octet-counted frame",
		in:   "5 hello10 abc",
		want: []scanned{{frame: "hello"}, {frame: "abc", err: ErrTruncated}},
	},
	{
		name: "EOF inside an octet count",
		in:   "<13>hello\n12",
		want: []scanned{{frame: "<13>hello"}, {frame: "12", err: ErrTruncated}},
	},
	{
		name: "EOF after an octet count",
		in:   "<13>hello\n12 ",
		want: []scanned{{frame: "<13>hello"}, {frame: "", err: ErrTruncated}},
	},
	{
		name: "a last newline-framed message without its LF",
		in:   "<13>hello\n<13>wor",
		want: []scanned{{frame: "<13>hello"}, {frame: "<13>wor"}},
	},
	{
		name: "a last newline-framed message without its LF, ending in CR",
		in:   "<13>hello\r",
		want: []scanned{{frame: "<13>hello"}},
	},
	{
		name:    "EOF inside an oversize octet-counted frame",
		in:      "20 aaaaaaaaaaaa",
		maxSize: 8,
		want:    []scanned{{frame: "aaaaaaaa", err: ErrTooLong}},
	},
	{
		name: "empty stream",
		in:   "",
		want: nil,
	},
}

// scanAll returns the frames s yields, failing t if it yields more than
// limit (which would mean it does not terminate).
func scanAll(t *testing.T, s *Scanner, limit int) []scanned {
	t.Helper()
	var got []scanned
	for s.Scan() {
		frame, err := s.Frame()
		got = append(got, scanned{frame: string(frame), err: err})
		if len(got) > limit {
			t.Fatalf("more than %d frames: %v", limit, got)
		}
	}
	return got
}

func TestScanner(t *testing.T) {
	readers := []struct {
		name string
		wrap func(io.Reader) io.Reader
	}{
		{"whole", func(r io.Reader) io.Reader { return r }},
		{"one byte at a time", iotest.OneByteReader},
	}
	for _, tt := range scanTests {
		for _, rd := range readers {
			t.Run(tt.name+"/"+rd.name, func(t *testing.T) {
				s := NewScanner(rd.wrap(strings.NewReader(tt.in)), tt.maxSize)
				got := scanAll(t, s, len(tt.in)+1)
				if len(got) != len(tt.want) {
					t.Fatalf("got %d frames %v, want %d %v", len(got), got, len(tt.want), tt.want)
				}
				for i, want := range tt.want {
					if got[i].frame != want.frame {
						t.Errorf("frame %d = %q, want %q", i, got[i].frame, want.frame)
					}
					if (got[i].err == nil) != (want.err == nil) || !errors.Is(got[i].err, want.err) {
						t.Errorf("frame %d error = %v, want %v", i, got[i].err, want.err)
					}
				}
				if err := s.Err(); err != nil {
					t.Errorf("Err() = %v at EOF, want nil", err)
				}
				if s.Scan() {
					t.Errorf("Scan() = true after it returned false")
				}
			})
		}
	}
}

func TestScannerReadError(t *testing.T) {
	errBroken := errors.New("connection broken")
	tests := []struct {
		name string
		in   string
		want []scanned
	}{
		{"between frames", "<13>hello\n", []scanned{{frame: "<13>hello"}}},
		{"inside a newline-framed frame", "<13>hello\n<13>wor", []scanned{{frame: "<13>hello"}, {frame: "<13>wor", err: ErrTruncated}}},
		{"inside an octet-counted frame", "10 abc", []scanned{{frame: "abc", err: ErrTruncated}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewScanner(io.MultiReader(strings.NewReader(tt.in), iotest.ErrReader(errBroken)), 0)
			got := scanAll(t, s, len(tt.in)+1)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d frames %v, want %d %v", len(got), got, len(tt.want), tt.want)
			}
			for i, want := range tt.want {
				if got[i].frame != want.frame || !errors.Is(got[i].err, want.err) || (got[i].err == nil) != (want.err == nil) {
					t.Errorf("frame %d = %q, %v; want %q, %v", i, got[i].frame, got[i].err, want.frame, want.err)
				}
			}
			if err := s.Err(); !errors.Is(err, errBroken) {
				t.Errorf("Err() = %v, want %v", err, errBroken)
			}
		})
	}
}
