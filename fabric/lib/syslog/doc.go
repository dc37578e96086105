// Package syslog turns syslog input into messages for the event gateway
// pod, which receives syslog over TCP and UDP and turns each message into a
// record.
//
// Parse reads one message, RFC 5424 or (best effort) RFC 3164 / BSD syslog,
// into a Message. The message formats are parsed with
// github.com/leodido/go-syslog; this package adds the choice between them,
// the RFC 3164 year guess and fallbacks for BSD senders that do not follow
// the grammar.
//
// Scanner splits a TCP stream into messages with the framing of RFC 6587
// (octet counting or newline/NUL termination, decided per message).
//
// A UDP datagram is exactly one message and needs no framing: the gateway
// calls Parse on each datagram directly.
package syslog
