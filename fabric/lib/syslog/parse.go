package syslog

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	gosyslog "github.com/leodido/go-syslog/v4"
	"github.com/leodido/go-syslog/v4/rfc3164"
	"github.com/leodido/go-syslog/v4/rfc5424"
)

// ErrMalformed is returned by Parse, wrapped with what is wrong, for input
// that is not a syslog message.
var ErrMalformed = errors.New("syslog: malformed message")

// utf8BOM is the byte order mark RFC 5424 puts before a UTF-8 MSG.
const utf8BOM = "\xef\xbb\xbf"

// maxPRI is the largest PRI: facility 23, severity 7.
const maxPRI = 23*8 + 7

// rfc3164Options make the RFC 3164 parser accept what BSD senders commonly
// send besides the strict grammar: RFC 3339 timestamps, fractional
// seconds, zero-padded days, and newlines inside an octet-counted MSG.
var rfc3164Options = []gosyslog.MachineOption{
	rfc3164.WithRFC3339(),
	rfc3164.WithSecondFractions(),
	rfc3164.WithLenientDay(),
	rfc3164.WithEmbeddedNewlines(),
}

// Parse parses one syslog message; raw is a UDP datagram or a frame from
// Scanner. Trailing CR, LF and NUL bytes are ignored.
//
// The message is read as RFC 5424 when it is one ("<PRI>1 ..." and valid
// to the RFC 5424 grammar), else as RFC 3164, best effort since BSD syslog
// senders vary:
//   - An RFC 3164 timestamp has no year: Parse takes the year that puts it
//     closest to now (the receive time) without being more than a day in
//     the future. It has no zone either: it is taken as UTC, unless the
//     sender used an RFC 3339 timestamp with its own offset.
//   - A message with a valid PRI but no valid timestamp keeps everything
//     after the PRI as Text, as RFC 3164 section 4.3 has relays do. One
//     with a valid timestamp whose header is otherwise not RFC 3164 keeps
//     everything after the timestamp as Text, with no hostname or TAG.
//
// An empty message, one without a valid <PRI> (0..191) at its start, or one
// with nothing after its PRI is an error wrapping ErrMalformed.
func Parse(raw []byte, now time.Time) (msg Message, err error) {
	// The go-syslog parsers are generated state machines. Should one of
	// them panic on some input, that input is reported as malformed rather
	// than taking the gateway down.
	defer func() {
		if r := recover(); r != nil {
			msg, err = Message{}, fmt.Errorf("%w: parser panic: %v", ErrMalformed, r)
		}
	}()

	in := bytes.TrimRight(raw, "\r\n\x00")
	if len(in) == 0 {
		return Message{}, fmt.Errorf("%w: empty", ErrMalformed)
	}
	pri, n, err := parsePRI(in)
	if err != nil {
		return Message{}, err
	}
	rest := in[n:]
	if len(bytes.TrimSpace(rest)) == 0 {
		return Message{}, fmt.Errorf("%w: nothing after <PRI>", ErrMalformed)
	}
	if canonical := "<" + strconv.Itoa(pri) + ">"; n != len(canonical) {
		// PRI with leading zeros, which the parsers refuse: give them the
		// canonical form.
		in = append([]byte(canonical), rest...)
	}
	if bytes.HasPrefix(rest, []byte("1 ")) {
		if m, ok := parse5424(in, pri); ok {
			return m, nil
		}
	}
	return parse3164(in, rest, pri, now), nil
}

// parsePRI reads the "<PRI>" at the start of in and returns its value and
// length.
func parsePRI(in []byte) (pri, n int, err error) {
	if in[0] != '<' {
		return 0, 0, fmt.Errorf("%w: no <PRI> at start", ErrMalformed)
	}
	i := 1
	for ; i < len(in) && i <= 4 && '0' <= in[i] && in[i] <= '9'; i++ {
		pri = pri*10 + int(in[i]-'0')
	}
	switch digits := i - 1; {
	case digits == 0:
		return 0, 0, fmt.Errorf("%w: PRI has no digits", ErrMalformed)
	case digits > 3:
		return 0, 0, fmt.Errorf("%w: PRI has more than 3 digits", ErrMalformed)
	case i == len(in) || in[i] != '>':
		return 0, 0, fmt.Errorf("%w: PRI not closed by '>'", ErrMalformed)
	case pri > maxPRI:
		return 0, 0, fmt.Errorf("%w: PRI %d above %d", ErrMalformed, pri, maxPRI)
	}
	return pri, i + 1, nil
}

// parse5424 parses in as RFC 5424; ok is false when it is not valid RFC 5424.
func parse5424(in []byte, pri int) (m Message, ok bool) {
	parsed, err := rfc5424.NewMachine().Parse(in)
	sm, ok := parsed.(*rfc5424.SyslogMessage)
	if err != nil || !ok || sm == nil {
		return Message{}, false
	}
	m = Message{
		Format:   FormatRFC5424,
		Facility: pri / 8,
		Severity: pri % 8,
		Hostname: deref(sm.Hostname),
		AppName:  deref(sm.Appname),
		ProcID:   deref(sm.ProcID),
		MsgID:    deref(sm.MsgID),
		Text:     strings.TrimPrefix(deref(sm.Message), utf8BOM),
	}
	if sm.Timestamp != nil {
		m.Timestamp = *sm.Timestamp
	}
	if sm.StructuredData != nil && len(*sm.StructuredData) > 0 {
		m.StructuredData = *sm.StructuredData
	}
	return m, true
}

// parse3164 parses in, whose PRI is pri and whose remainder after PRI is
// rest, as RFC 3164. It cannot fail: what the parser does not take becomes
// Text.
func parse3164(in, rest []byte, pri int, now time.Time) Message {
	m := Message{Format: FormatRFC3164, Facility: pri / 8, Severity: pri % 8}
	parsed, err := rfc3164.NewMachine(rfc3164Options...).Parse(in)
	sm, ok := parsed.(*rfc3164.SyslogMessage)
	// The parser can also report success without a message.
	if err != nil || !ok || sm == nil || sm.Timestamp == nil {
		m.Text = strings.TrimPrefix(string(rest), utf8BOM)
		return m
	}

	// A timestamp is either "Mmm dd hh:mm:ss" (three fields, no year) or,
	// starting with a digit, RFC 3339 (one field).
	stampFields := 3
	if r := bytes.TrimLeft(rest, " "); len(r) > 0 && '0' <= r[0] && r[0] <= '9' {
		stampFields = 1
	}
	m.Timestamp = *sm.Timestamp
	if stampFields == 3 {
		m.Timestamp = guessYear(m.Timestamp, now)
	}

	// The parser may set HOSTNAME, TAG and even MSG speculatively on input
	// that turns out not to fit them ("<13>Oct 11 22:14:15 host " gives
	// hostname "host" and MSG "host "; "... host app[1]" gives MSG "1]").
	// Keep what stands where the grammar puts it; when the input before
	// MSG is more than that, everything after the timestamp is MSG.
	text := deref(sm.Message)
	header, isSuffix := strings.CutSuffix(string(in), text)
	hostOK, tagOK, headerOK := checkHeader(header, stampFields, deref(sm.Hostname), deref(sm.Appname), deref(sm.ProcID))
	if !isSuffix || !headerOK {
		m.Text = strings.TrimPrefix(afterFields(string(rest), stampFields), utf8BOM)
		return m
	}
	if hostOK {
		m.Hostname = deref(sm.Hostname)
	}
	if tagOK {
		m.AppName, m.ProcID = deref(sm.Appname), deref(sm.ProcID)
	}
	m.Text = strings.TrimPrefix(text, utf8BOM)
	return m
}

// checkHeader reports which of the parsed host and tag (app, pid) stand
// where the RFC 3164 grammar puts them in header, the input before MSG:
// "<PRI>" SP* TIMESTAMP SP+ [HOSTNAME SP+] [APP ["[" PID "]"] ":" SP].
// ok is false when header holds anything else: the parse went astray.
func checkHeader(header string, stampFields int, host, app, pid string) (hostOK, tagOK, ok bool) {
	tag := ""
	switch {
	case app != "" && pid != "":
		tag = app + "[" + pid + "]: "
	case app != "":
		tag = app + ": "
	}
	if tag != "" && strings.HasSuffix(header, tag) {
		header, tagOK = header[:len(header)-len(tag)], true
	}
	if !strings.HasSuffix(header, " ") {
		return false, false, false
	}
	header = strings.TrimRight(header, " ")
	if host != "" && strings.HasSuffix(header, " "+host) {
		header, hostOK = header[:len(header)-len(host)], true
	}
	_, stamp, _ := strings.Cut(header, ">")
	return hostOK, tagOK, len(strings.Fields(stamp)) == stampFields
}

// afterFields returns s after its first n space-separated fields and the
// spaces after them.
func afterFields(s string, n int) string {
	for range n {
		s = strings.TrimLeft(s, " ")
		i := strings.IndexByte(s, ' ')
		if i < 0 {
			return ""
		}
		s = s[i:]
	}
	return strings.TrimLeft(s, " ")
}

// guessYear returns t, a time of year in UTC parsed without a year, in the
// year that puts it closest to now without being more than a day after
// now. It returns the zero time when no year fits (February 29 with no
// leap year near now, which cannot happen for real dates of now).
func guessYear(t, now time.Time) time.Time {
	limit := now.Add(24 * time.Hour)
	// Candidates from next year back; eight years back always holds a leap
	// year for a February 29.
	for y := now.Year() + 1; y >= now.Year()-8; y-- {
		c := time.Date(y, t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
		if c.Day() != t.Day() {
			continue // February 29 in a common year
		}
		if !c.After(limit) {
			return c
		}
	}
	return time.Time{}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
