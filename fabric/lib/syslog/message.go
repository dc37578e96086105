package syslog

import "time"

// Message formats, the values of Message.Format.
const (
	// FormatRFC5424 is the format of an RFC 5424 message.
	FormatRFC5424 = "rfc5424"
	// FormatRFC3164 is the format of an RFC 3164 (BSD syslog) message, or
	// of one that is not RFC 5424 (see Parse).
	FormatRFC3164 = "rfc3164"
)

// Message is a parsed syslog message.
type Message struct {
	// Format is FormatRFC5424 or FormatRFC3164.
	Format string
	// Timestamp is the message's own time; zero when it has none.
	Timestamp time.Time
	// Hostname is the sending host as the message names it; empty when
	// absent (or "-" in RFC 5424).
	Hostname string
	// Facility is the facility from PRI, 0..23.
	Facility int
	// Severity is the severity from PRI, 0..7.
	Severity int
	// AppName is APP-NAME in RFC 5424; in RFC 3164 the "app" of a TAG
	// "app[pid]:" or "app:" when the message has one.
	AppName string
	// ProcID is PROCID in RFC 5424; in RFC 3164 the "pid" of a TAG
	// "app[pid]:" when the message has one.
	ProcID string
	// MsgID is MSGID in RFC 5424; always empty in RFC 3164.
	MsgID string
	// StructuredData maps SD-ID to its parameters (RFC 5424); nil when the
	// message has none.
	StructuredData map[string]map[string]string
	// Text is the MSG part, without a leading UTF-8 byte order mark.
	Text string
}

var severityNames = [8]string{"emerg", "alert", "crit", "err", "warning", "notice", "info", "debug"}

var facilityNames = [24]string{
	"kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news",
	"uucp", "cron", "authpriv", "ftp", "ntp", "security", "console", "solaris-cron",
	"local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7",
}

// SeverityName returns the keyword of m.Severity: emerg, alert, crit, err,
// warning, notice, info or debug; "" when Severity is out of range.
func (m Message) SeverityName() string {
	if m.Severity < 0 || m.Severity >= len(severityNames) {
		return ""
	}
	return severityNames[m.Severity]
}

// FacilityName returns the RFC 5424 keyword of m.Facility: kern, user, mail,
// daemon, auth, syslog, lpr, news, uucp, cron, authpriv, ftp, ntp,
// security, console, solaris-cron or local0..local7; "" when Facility is
// out of range.
func (m Message) FacilityName() string {
	if m.Facility < 0 || m.Facility >= len(facilityNames) {
		return ""
	}
	return facilityNames[m.Facility]
}
