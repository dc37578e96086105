package syslog

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// FuzzParse checks that Parse never panics and that what it accepts has a
// facility and severity in range and a known format.
func FuzzParse(f *testing.F) {
	for _, tt := range parseTests {
		f.Add([]byte(tt.in))
	}
	for _, tt := range malformedTests {
		f.Add([]byte(tt.in))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, err := Parse(raw, parseNow)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("Parse(%q) error %v does not wrap ErrMalformed", raw, err)
			}
			return
		}
		if m.Severity < 0 || m.Severity > 7 || m.Facility < 0 || m.Facility > 23 {
			t.Fatalf("Parse(%q): facility %d, severity %d out of range", raw, m.Facility, m.Severity)
		}
		if m.Format != FormatRFC5424 && m.Format != FormatRFC3164 {
			t.Fatalf("Parse(%q): format %q", raw, m.Format)
		}
		// The header fields are taken from the input, and RFC 3164 MSG is
		// the end of it (less line endings and BOM).
		for _, field := range []string{m.Hostname, m.AppName, m.ProcID, m.MsgID} {
			if !bytes.Contains(raw, []byte(field)) {
				t.Fatalf("Parse(%q): field %q is not in the input", raw, field)
			}
		}
		// Structured data is RFC 5424's alone, and its SD-IDs and
		// parameter names are taken from the input as they are.
		if m.StructuredData != nil && m.Format != FormatRFC5424 {
			t.Fatalf("Parse(%q): structured data in a %s message", raw, m.Format)
		}
		for id, params := range m.StructuredData {
			if id == "" || !bytes.Contains(raw, []byte("["+id)) {
				t.Fatalf("Parse(%q): SD-ID %q is not in the input", raw, id)
			}
			for name := range params {
				if name == "" || !bytes.Contains(raw, []byte(" "+name+`="`)) {
					t.Fatalf("Parse(%q): SD-PARAM %q of %s is not in the input", raw, name, id)
				}
			}
		}
		if m.Format == FormatRFC3164 {
			in := string(bytes.TrimRight(raw, "\r\n\x00"))
			if !strings.HasSuffix(in, m.Text) {
				t.Fatalf("Parse(%q): text %q is not the end of the input", raw, m.Text)
			}
		}
	})
}

// FuzzScanner checks that a Scanner never panics, never returns a frame
// over maxSize, reports only its framing errors, and always terminates.
func FuzzScanner(f *testing.F) {
	for _, tt := range scanTests {
		f.Add([]byte(tt.in), uint8(tt.maxSize))
	}
	for _, tt := range parseTests {
		f.Add([]byte(tt.in+"\n"+tt.in), uint8(16))
	}
	f.Fuzz(func(t *testing.T, in []byte, size uint8) {
		maxSize := int(size)%64 + 1
		s := NewScanner(bytes.NewReader(in), maxSize)
		// Each frame consumes at least one byte, but for the last (cut
		// short by EOF) which may consume none.
		for frames := 0; s.Scan(); frames++ {
			if frames > len(in) {
				t.Fatalf("more than %d frames from %d bytes", frames, len(in))
			}
			frame, err := s.Frame()
			if len(frame) > maxSize {
				t.Fatalf("frame of %d bytes over maxSize %d", len(frame), maxSize)
			}
			if err == nil && len(frame) == 0 {
				t.Fatalf("empty frame without error")
			}
			if err != nil && !errors.Is(err, ErrTooLong) && !errors.Is(err, ErrBadCount) && !errors.Is(err, ErrTruncated) {
				t.Fatalf("frame error %v is not a framing error", err)
			}
		}
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v reading from memory", err)
		}
	})
}
