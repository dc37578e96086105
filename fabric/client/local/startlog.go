package local

import (
	infra "github.com/fabricops/fabric/fabric/infra/local"
	"io"
	"os"
	"strings"
)

// logMarks are the sizes of the fabric's logs before a start: what a
// failed start wrote is what follows.
type logMarks struct {
	home       string
	fabric, ns int64
}

func markLogs(home string) logMarks {
	return logMarks{home: home, fabric: fileSize(infra.LogFile(home)), ns: fileSize(infra.NATSLogFile(home))}
}

func fileSize(path string) int64 {
	if st, err := os.Stat(path); err == nil {
		return st.Size()
	}
	return 0
}

// maxReasonLines bounds the log lines a failed start shows.
const maxReasonLines = 8

// reasons returns the lines of the logs, written since the marks, that
// say why a start failed: the fabric's errors and panics (never a stack),
// the NATS server's errors and warnings; without any, the last lines of
// the fabric's log. It names the logs to read for more.
func (m logMarks) reasons() string {
	fabric := since(infra.LogFile(m.home), m.fabric)
	ns := since(infra.NATSLogFile(m.home), m.ns)
	var lines []string
	for _, l := range fabric {
		low := strings.ToLower(l)
		if strings.Contains(low, "error") || strings.HasPrefix(low, "panic:") || strings.Contains(low, "fatal") {
			lines = append(lines, l)
		}
	}
	for _, l := range ns {
		if strings.Contains(l, "[ERR]") || strings.Contains(l, "[FTL]") || strings.Contains(l, "[WRN]") {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		var plain []string
		for _, l := range fabric {
			if !stackLine(l) {
				plain = append(plain, l)
			}
		}
		lines = plain[max(0, len(plain)-5):]
	}
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(stripTime(l), "error: ")
	}
	lines = compact(lines)
	if len(lines) > maxReasonLines {
		lines = append(lines[:maxReasonLines-1], lines[len(lines)-1])
	}
	where := "see " + infra.LogFile(m.home) + " and " + infra.NATSLogFile(m.home)
	switch len(lines) {
	case 0:
		return "its logs say nothing; " + where
	case 1:
		return lines[0] + " (" + where + ")"
	}
	return strings.Join(lines, "\n") + "\n(" + where + ")"
}

// stripTime drops the date and time a log line starts with
// ("2006/01/02 15:04:05 ", as the fabric's log writes them).
func stripTime(l string) string {
	const layout = "2006/01/02 15:04:05 "
	if len(l) > len(layout) && l[4] == '/' && l[7] == '/' && l[13] == ':' {
		return l[len(layout):]
	}
	return l
}

// stackLine reports whether l is part of a Go stack trace.
func stackLine(l string) bool {
	return strings.HasPrefix(l, "\t") || strings.HasPrefix(l, "goroutine ") || strings.HasPrefix(l, "created by ") ||
		strings.HasSuffix(l, ")") && strings.Contains(l, "(0x")
}

// compact drops repeated lines (the same error for each tenant) keeping
// the first of each.
func compact(lines []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range lines {
		key := l
		if i := strings.Index(l, "] "); i >= 0 {
			key = l[i:] // without the time and the tenant
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, l)
		}
	}
	return out
}

// since returns the lines written to path after its first off bytes.
func since(path string, off int64) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() < off {
		off = 0 // rotated or truncated
	}
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return nil
	}
	data, _ := io.ReadAll(io.LimitReader(f, 1<<20))
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimRight(l, "\r "); l != "" {
			out = append(out, l)
		}
	}
	return out
}
