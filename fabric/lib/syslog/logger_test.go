package syslog

import (
	"bytes"
	"context"
	"io"
	"net"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// loggerTimeout bounds every wait of TestLogger.
const loggerTimeout = 10 * time.Second

// TestLogger sends syslog with util-linux logger(1) over TCP and UDP on the
// loopback and reads it back with Scanner and Parse.
func TestLogger(t *testing.T) {
	logger, err := exec.LookPath("logger")
	if err != nil {
		t.Skip("logger (util-linux) not installed")
	}
	tests := []struct {
		name       string
		network    string
		args       []string
		wantFormat string
		wantText   string
		counted    bool // octet-counted framing on the wire
	}{
		{"tcp rfc5424", "tcp", []string{"--rfc5424", "hello 5424"}, FormatRFC5424, "hello 5424", false},
		{"tcp rfc3164", "tcp", []string{"--rfc3164", "hello 3164"}, FormatRFC3164, "hello 3164", false},
		{"tcp octet-counted rfc5424", "tcp", []string{"--octet-count", "--rfc5424", "counted"}, FormatRFC5424, "counted", true},
		{"udp rfc5424", "udp", []string{"--rfc5424", "hello udp"}, FormatRFC5424, "hello udp", false},
		{"udp rfc3164", "udp", []string{"--rfc3164", "hello udp 3164"}, FormatRFC3164, "hello udp 3164", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"-p", "user.warning", "-t", "myapp"}, tt.args...)
			var raw []byte
			if tt.network == "tcp" {
				var stream []byte
				raw, stream = receiveTCP(t, logger, args)
				if counted := stream[0] >= '0' && stream[0] <= '9'; counted != tt.counted {
					t.Errorf("octet-counted = %v, want %v; stream %q", counted, tt.counted, stream)
				}
			} else {
				raw = receiveUDP(t, logger, args)
			}
			t.Logf("received %q", raw)
			now := time.Now()
			m, err := Parse(raw, now)
			if err != nil {
				t.Fatalf("Parse(%q): %v", raw, err)
			}
			if m.Format != tt.wantFormat || m.Text != tt.wantText || m.AppName != "myapp" || m.Hostname == "" ||
				m.FacilityName() != "user" || m.SeverityName() != "warning" {
				t.Errorf("Parse(%q) = %+v; want format %s, text %q, app myapp, a hostname, user.warning",
					raw, m, tt.wantFormat, tt.wantText)
			}
			// An RFC 3164 timestamp is in the sender's unknown zone.
			slack := time.Minute
			if m.Format == FormatRFC3164 {
				slack = 15 * time.Hour
			}
			if d := now.Sub(m.Timestamp); d < -slack || d > slack {
				t.Errorf("Timestamp %v is not within %v of now %v", m.Timestamp, slack, now)
			}
		})
	}
}

// receiveTCP runs logger with args against a TCP listener and returns the one
// frame it sends and the whole stream.
func receiveTCP(t *testing.T, logger string, args []string) (frame, stream []byte) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	cmd, stderr := startLogger(t, logger, append([]string{"--tcp", "--server", "127.0.0.1", "--port", port}, args...))

	if err := ln.(*net.TCPListener).SetDeadline(time.Now().Add(loggerTimeout)); err != nil {
		t.Fatal(err)
	}
	conn, err := ln.Accept()
	if err != nil {
		_ = cmd.Wait()
		t.Fatalf("accept: %v; logger said %q", err, stderr)
	}
	defer conn.Close()
	if err := conn.SetReadDeadline(time.Now().Add(loggerTimeout)); err != nil {
		t.Fatal(err)
	}
	var wire bytes.Buffer
	s := NewScanner(io.TeeReader(conn, &wire), 0)
	var frames [][]byte
	for s.Scan() {
		f, err := s.Frame()
		if err != nil {
			t.Fatalf("frame %q: %v", f, err)
		}
		frames = append(frames, bytes.Clone(f))
	}
	if err := s.Err(); err != nil {
		t.Fatalf("reading: %v", err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("logger: %v; it said %q", err, stderr)
	}
	if len(frames) != 1 {
		t.Fatalf("got %d frames %q, want 1", len(frames), frames)
	}
	return frames[0], wire.Bytes()
}

// receiveUDP runs logger with args against a UDP socket and returns the
// datagram it sends.
func receiveUDP(t *testing.T, logger string, args []string) []byte {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	port := strconv.Itoa(pc.LocalAddr().(*net.UDPAddr).Port)
	cmd, stderr := startLogger(t, logger, append([]string{"--udp", "--server", "127.0.0.1", "--port", port}, args...))
	if err := cmd.Wait(); err != nil {
		t.Fatalf("logger: %v; it said %q", err, stderr)
	}
	if err := pc.SetReadDeadline(time.Now().Add(loggerTimeout)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64<<10)
	n, _, err := pc.ReadFrom(buf)
	if err != nil {
		t.Fatalf("reading datagram: %v", err)
	}
	return buf[:n]
}

// startLogger starts logger with args, killed after loggerTimeout, and
// returns it with the buffer collecting its standard error.
func startLogger(t *testing.T, logger string, args []string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), loggerTimeout)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, logger, args...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting logger: %v", err)
	}
	return cmd, &stderr
}
