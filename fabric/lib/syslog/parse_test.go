package syslog

import (
	"errors"
	"reflect"
	"testing"
	"time"
)

// parseNow is the receive time of the Parse tests, for the RFC 3164 year.
var parseNow = time.Date(2025, time.March, 1, 12, 0, 0, 0, time.UTC)

func utc(year int, month time.Month, day, hour, minute, second, nsec int) time.Time {
	return time.Date(year, month, day, hour, minute, second, nsec, time.UTC)
}

// parseTests are messages Parse accepts, with their fields written out by
// hand. Their inputs also seed FuzzParse.
var parseTests = []struct {
	name string
	in   string
	want Message
}{
	// RFC 5424 section 6.5, examples 1 to 4 ("BOM" is the UTF-8 byte order mark).
	{
		name: "rfc5424 example 1, BOM",
		in:   "<34>1 2003-10-11T22:14:15.003Z mymachine.example.com su - ID47 - \xef\xbb\xbf'su root' failed for lonvick on /dev/pts/8",
		want: Message{Format: "rfc5424", Timestamp: utc(2003, 10, 11, 22, 14, 15, 3e6), Hostname: "mymachine.example.com",
			Facility: 4, Severity: 2, AppName: "su", MsgID: "ID47", Text: "'su root' failed for lonvick on /dev/pts/8"},
	},
	{
		name: "rfc5424 example 2, offset and microseconds",
		in:   "<165>1 2003-08-24T05:14:15.000003-07:00 192.0.2.1 myproc 8710 - - %% It's time to make the do-nuts.",
		want: Message{Format: "rfc5424", Timestamp: utc(2003, 8, 24, 12, 14, 15, 3000), Hostname: "192.0.2.1",
			Facility: 20, Severity: 5, AppName: "myproc", ProcID: "8710", Text: "%% It's time to make the do-nuts."},
	},
	{
		name: "rfc5424 example 3, structured data and BOM",
		in: `<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 [exampleSDID@32473 iut="3" eventSource="Application" eventID="1011"] ` +
			"\xef\xbb\xbfAn application event log entry...",
		want: Message{Format: "rfc5424", Timestamp: utc(2003, 10, 11, 22, 14, 15, 3e6), Hostname: "mymachine.example.com",
			Facility: 20, Severity: 5, AppName: "evntslog", MsgID: "ID47",
			StructuredData: map[string]map[string]string{
				"exampleSDID@32473": {"iut": "3", "eventSource": "Application", "eventID": "1011"},
			},
			Text: "An application event log entry..."},
	},
	{
		name: "rfc5424 example 4, two SD elements, no MSG",
		in:   `<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 [exampleSDID@32473 iut="3" eventSource="Application" eventID="1011"][examplePriority@32473 class="high"]`,
		want: Message{Format: "rfc5424", Timestamp: utc(2003, 10, 11, 22, 14, 15, 3e6), Hostname: "mymachine.example.com",
			Facility: 20, Severity: 5, AppName: "evntslog", MsgID: "ID47",
			StructuredData: map[string]map[string]string{
				"exampleSDID@32473":     {"iut": "3", "eventSource": "Application", "eventID": "1011"},
				"examplePriority@32473": {"class": "high"},
			}},
	},
	{
		name: "rfc5424 all NILVALUE",
		in:   "<13>1 - - - - - -",
		want: Message{Format: "rfc5424", Facility: 1, Severity: 5},
	},
	{
		name: "rfc5424 NILVALUE fields, MSG, trailing CRLF",
		in:   "<14>1 - host - - - - hello there\r\n",
		want: Message{Format: "rfc5424", Hostname: "host", Facility: 1, Severity: 6, Text: "hello there"},
	},
	{
		name: "rfc5424 escaped SD values",
		in:   `<13>1 2024-05-06T07:08:09+02:00 host app 123 - [origin ip="192.0.2.1" software="x\"y\]z\\w"][meta sequenceId="7"] text`,
		want: Message{Format: "rfc5424", Timestamp: utc(2024, 5, 6, 5, 8, 9, 0), Hostname: "host", Facility: 1, Severity: 5,
			AppName: "app", ProcID: "123",
			StructuredData: map[string]map[string]string{
				"origin": {"ip": "192.0.2.1", "software": `x"y]z\w`},
				"meta":   {"sequenceId": "7"},
			},
			Text: "text"},
	},
	{
		name: "rfc5424 PRI with leading zeros",
		in:   "<013>1 - host app - - - hi",
		want: Message{Format: "rfc5424", Hostname: "host", Facility: 1, Severity: 5, AppName: "app", Text: "hi"},
	},
	{
		name: "rfc5424 missing a field falls back to rfc3164 text",
		in:   "<13>1 - - - - -",
		want: Message{Format: "rfc3164", Facility: 1, Severity: 5, Text: "1 - - - - -"},
	},
	{
		name: "rfc5424 bad timestamp falls back to rfc3164 text",
		in:   "<13>1 2003-13-45T99:00:00Z host app - - - x",
		want: Message{Format: "rfc3164", Facility: 1, Severity: 5, Text: "1 2003-13-45T99:00:00Z host app - - - x"},
	},

	// RFC 3164 section 5.4 examples.
	{
		name: "rfc3164 example 1",
		in:   "<34>Oct 11 22:14:15 mymachine su: 'su root' failed for lonvick on /dev/pts/8",
		want: Message{Format: "rfc3164", Timestamp: utc(2024, 10, 11, 22, 14, 15, 0), Hostname: "mymachine",
			Facility: 4, Severity: 2, AppName: "su", Text: "'su root' failed for lonvick on /dev/pts/8"},
	},
	{
		name: "rfc3164 example 2 as relayed, no TAG",
		in:   "<13>Feb  5 17:32:18 10.0.0.99 Use the BFG!",
		want: Message{Format: "rfc3164", Timestamp: utc(2025, 2, 5, 17, 32, 18, 0), Hostname: "10.0.0.99",
			Facility: 1, Severity: 5, Text: "Use the BFG!"},
	},
	{
		name: "rfc3164 example 3, CST read as hostname",
		in:   "<165>Aug 24 05:34:00 CST 1987 mymachine myproc[10]: %% It's time to make the do-nuts.  %%  Ingredients: Mix=OK, Jar=OK, Oven=OK, Flour=OK",
		want: Message{Format: "rfc3164", Timestamp: utc(2024, 8, 24, 5, 34, 0, 0), Hostname: "CST", Facility: 20, Severity: 5,
			Text: "1987 mymachine myproc[10]: %% It's time to make the do-nuts.  %%  Ingredients: Mix=OK, Jar=OK, Oven=OK, Flour=OK"},
	},
	{
		name: "rfc3164 example 4, invalid timestamp: all after PRI is text",
		in:   "<0>1990 Oct 22 10:52:01 TZ-6 scapegoat.dmz.example.org 10.1.2.3 sched[0]: That's All Folks!",
		want: Message{Format: "rfc3164", Facility: 0, Severity: 0,
			Text: "1990 Oct 22 10:52:01 TZ-6 scapegoat.dmz.example.org 10.1.2.3 sched[0]: That's All Folks!"},
	},

	// Other RFC 3164 / BSD forms.
	{
		name: "rfc3164 without hostname",
		in:   "<34>Oct 11 22:14:15 su: 'su root' failed",
		want: Message{Format: "rfc3164", Timestamp: utc(2024, 10, 11, 22, 14, 15, 0), Facility: 4, Severity: 2,
			AppName: "su", Text: "'su root' failed"},
	},
	{
		name: "rfc3164 TAG with pid",
		in:   "<30>Mar  1 11:59:59 web01 nginx[4321]: GET / 200",
		want: Message{Format: "rfc3164", Timestamp: utc(2025, 3, 1, 11, 59, 59, 0), Hostname: "web01", Facility: 3, Severity: 6,
			AppName: "nginx", ProcID: "4321", Text: "GET / 200"},
	},
	{
		name: "rfc3164 hours ahead of now stays this year",
		in:   "<30>Mar  1 20:00:00 web01 cron: x",
		want: Message{Format: "rfc3164", Timestamp: utc(2025, 3, 1, 20, 0, 0, 0), Hostname: "web01", Facility: 3, Severity: 6,
			AppName: "cron", Text: "x"},
	},
	{
		name: "rfc3164 days ahead of now is last year",
		in:   "<30>Mar  3 12:00:00 web01 cron: x",
		want: Message{Format: "rfc3164", Timestamp: utc(2024, 3, 3, 12, 0, 0, 0), Hostname: "web01", Facility: 3, Severity: 6,
			AppName: "cron", Text: "x"},
	},
	{
		name: "rfc3164 zero-padded day and fractional seconds",
		in:   "<30>Feb 05 17:32:18.250 web01 app: x",
		want: Message{Format: "rfc3164", Timestamp: utc(2025, 2, 5, 17, 32, 18, 250e6), Hostname: "web01", Facility: 3, Severity: 6,
			AppName: "app", Text: "x"},
	},
	{
		name: "rfc3164 with RFC 3339 timestamp and zone",
		in:   "<38>2024-10-11T22:14:15.123+02:00 host sshd[77]: Accepted publickey",
		want: Message{Format: "rfc3164", Timestamp: utc(2024, 10, 11, 20, 14, 15, 123e6), Hostname: "host", Facility: 4, Severity: 6,
			AppName: "sshd", ProcID: "77", Text: "Accepted publickey"},
	},
	{
		name: "rfc3164 BOM in MSG",
		in:   "<13>Oct 11 22:14:15 host app: \xef\xbb\xbfh\u00e9",
		want: Message{Format: "rfc3164", Timestamp: utc(2024, 10, 11, 22, 14, 15, 0), Hostname: "host", Facility: 1, Severity: 5,
			AppName: "app", Text: "h\u00e9"},
	},
	{
		name: "rfc3164 newline inside MSG, trailing LF",
		in:   "<13>Oct 11 22:14:15 host app: line1\nline2\n",
		want: Message{Format: "rfc3164", Timestamp: utc(2024, 10, 11, 22, 14, 15, 0), Hostname: "host", Facility: 1, Severity: 5,
			AppName: "app", Text: "line1\nline2"},
	},
	{
		name: "rfc3164 trailing space: the word is MSG, not hostname",
		in:   "<13>Oct 11 22:14:15 host ",
		want: Message{Format: "rfc3164", Timestamp: utc(2024, 10, 11, 22, 14, 15, 0), Facility: 1, Severity: 5, Text: "host "},
	},
	{
		name: "rfc3164 extra spaces",
		in:   "<13>Oct 11 22:14:15  host  app:  x",
		want: Message{Format: "rfc3164", Timestamp: utc(2024, 10, 11, 22, 14, 15, 0), Hostname: "host", Facility: 1, Severity: 5,
			AppName: "app", Text: " x"},
	},
	{
		name: "rfc3164 unfinished TAG: all after timestamp is text",
		in:   "<13>Oct 11 22:14:15 host app[1]",
		want: Message{Format: "rfc3164", Timestamp: utc(2024, 10, 11, 22, 14, 15, 0), Facility: 1, Severity: 5, Text: "host app[1]"},
	},
	{
		name: "rfc3164 empty pid: all after timestamp is text",
		in:   "<13>Oct 11 22:14:15 host app[]: x",
		want: Message{Format: "rfc3164", Timestamp: utc(2024, 10, 11, 22, 14, 15, 0), Facility: 1, Severity: 5, Text: "host app[]: x"},
	},
	{
		name: "rfc3164 control byte in MSG: all after PRI is text",
		in:   "<13>Oct 11 22:14:15 host app: a\x01b",
		want: Message{Format: "rfc3164", Facility: 1, Severity: 5, Text: "Oct 11 22:14:15 host app: a\x01b"},
	},
	{
		name: "PRI and free text only",
		in:   "<13>hello",
		want: Message{Format: "rfc3164", Facility: 1, Severity: 5, Text: "hello"},
	},
	{
		name: "highest PRI",
		in:   "<191>Oct 11 22:14:15 host app: max",
		want: Message{Format: "rfc3164", Timestamp: utc(2024, 10, 11, 22, 14, 15, 0), Hostname: "host", Facility: 23, Severity: 7,
			AppName: "app", Text: "max"},
	},
}

func TestParse(t *testing.T) {
	for _, tt := range parseTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.in), parseNow)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.in, err)
			}
			if !got.Timestamp.Equal(tt.want.Timestamp) {
				t.Errorf("Timestamp = %v, want %v", got.Timestamp, tt.want.Timestamp)
			}
			got.Timestamp, tt.want.Timestamp = time.Time{}, time.Time{}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse(%q)\n got %+v\nwant %+v", tt.in, got, tt.want)
			}
		})
	}
}

// malformedTests are inputs Parse refuses. They also seed FuzzParse.
var malformedTests = []struct {
	name string
	in   string
}{
	{"empty", ""},
	{"only line ending", "\r\n"},
	{"no PRI", "Use the BFG!"},
	{"space before PRI", " <13>Oct 11 22:14:15 host app: x"},
	{"PRI 192", "<192>Oct 11 22:14:15 host app: x"},
	{"PRI 999", "<999>1 - - - - - -"},
	{"PRI of 4 digits", "<0013>hello"},
	{"PRI without digits", "<>hello"},
	{"negative PRI", "<-1>hello"},
	{"PRI not closed", "<13 hello"},
	{"PRI cut short", "<13"},
	{"PRI alone", "<13>"},
	{"PRI and spaces", "<13>   "},
	{"garbage", "\x00\xff\xfe\x80garbage"},
}

func TestParseMalformed(t *testing.T) {
	for _, tt := range malformedTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.in), parseNow)
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("Parse(%q) = %+v, %v; want an ErrMalformed", tt.in, got, err)
			}
			if !reflect.DeepEqual(got, Message{}) {
				t.Errorf("Parse(%q) returned %+v with its error, want a zero Message", tt.in, got)
			}
		})
	}
}

func TestGuessYear(t *testing.T) {
	tests := []struct {
		name     string
		stamp    time.Time // year 0, as parsed from "Mmm dd hh:mm:ss"
		now      time.Time
		wantYear int
	}{
		{"earlier this year", utc(0, 2, 1, 0, 0, 0, 0), utc(2025, 3, 1, 12, 0, 0, 0), 2025},
		{"late December seen on New Year", utc(0, 12, 31, 23, 59, 0, 0), utc(2025, 1, 1, 0, 30, 0, 0), 2024},
		{"New Year seen late on December 31", utc(0, 1, 1, 10, 0, 0, 0), utc(2024, 12, 31, 23, 0, 0, 0), 2025},
		{"just over a day ahead", utc(0, 3, 2, 12, 0, 1, 0), utc(2025, 3, 1, 12, 0, 0, 0), 2024},
		{"exactly a day ahead", utc(0, 3, 2, 12, 0, 0, 0), utc(2025, 3, 1, 12, 0, 0, 0), 2025},
		{"February 29, last leap year", utc(0, 2, 29, 22, 14, 15, 0), utc(2025, 3, 1, 12, 0, 0, 0), 2024},
		{"February 29 too far ahead this leap year", utc(0, 2, 29, 22, 14, 15, 0), utc(2024, 2, 28, 12, 0, 0, 0), 2020},
		{"February 29 eight years back", utc(0, 2, 29, 0, 0, 0, 0), utc(2103, 6, 1, 0, 0, 0, 0), 2096},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := guessYear(tt.stamp, tt.now)
			want := time.Date(tt.wantYear, tt.stamp.Month(), tt.stamp.Day(), tt.stamp.Hour(), tt.stamp.Minute(),
				tt.stamp.Second(), tt.stamp.Nanosecond(), time.UTC)
			if !got.Equal(want) {
				t.Errorf("guessYear(%v, now %v) = %v, want %v", tt.stamp, tt.now, got, want)
			}
		})
	}
}

func TestNames(t *testing.T) {
	tests := []struct {
		facility, severity    int
		wantFacility, wantSev string
	}{
		{0, 0, "kern", "emerg"},
		{1, 1, "user", "alert"},
		{2, 2, "mail", "crit"},
		{3, 3, "daemon", "err"},
		{4, 4, "auth", "warning"},
		{5, 5, "syslog", "notice"},
		{6, 6, "lpr", "info"},
		{7, 7, "news", "debug"},
		{8, 8, "uucp", ""},
		{9, -1, "cron", ""},
		{10, 0, "authpriv", "emerg"},
		{11, 0, "ftp", "emerg"},
		{12, 0, "ntp", "emerg"},
		{13, 0, "security", "emerg"},
		{14, 0, "console", "emerg"},
		{15, 0, "solaris-cron", "emerg"},
		{16, 0, "local0", "emerg"},
		{20, 0, "local4", "emerg"},
		{23, 0, "local7", "emerg"},
		{24, 0, "", "emerg"},
		{-1, 0, "", "emerg"},
	}
	for _, tt := range tests {
		m := Message{Facility: tt.facility, Severity: tt.severity}
		if got := m.FacilityName(); got != tt.wantFacility {
			t.Errorf("Facility %d: FacilityName() = %q, want %q", tt.facility, got, tt.wantFacility)
		}
		if got := m.SeverityName(); got != tt.wantSev {
			t.Errorf("Severity %d: SeverityName() = %q, want %q", tt.severity, got, tt.wantSev)
		}
	}
}
