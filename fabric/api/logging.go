package api

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Pod logging (SPEC 4.13: pod-logging, pod-logging-handler-set,
// set-pod-log-level): each pod has loggers (itself and its parts), each
// with a level, and handlers that write what passes (the log file or
// stderr, and NATS: LogSubject, what watch logs shows), each with a
// level and a target. A change takes effect at once on the running pod.

// EndpointLogging is the pod endpoint (every pod answers it) that reports
// or changes the pod's logging configuration (a LoggingRequest; the
// answer: a PodLogging, or an Error).
const EndpointLogging = "logging"

// Log levels, from the most verbose.
const (
	LevelDebug   = "debug"
	LevelInfo    = "info"
	LevelWarning = "warning"
	LevelError   = "error"
)

// LogLevels are the levels, from the most verbose.
var LogLevels = []string{LevelDebug, LevelInfo, LevelWarning, LevelError}

// ParseLevel returns the level s names, case-insensitive ("warn" is
// warning), or an error naming the levels.
func ParseLevel(s string) (string, error) {
	l := strings.ToLower(strings.TrimSpace(s))
	if l == "warn" {
		l = LevelWarning
	}
	for _, v := range LogLevels {
		if l == v {
			return v, nil
		}
	}
	return "", fmt.Errorf("%q is not a log level: one of debug, info, warning, error", s)
}

// LevelRank orders levels: debug 0 ... error 3 (-1 for a level that is
// none).
func LevelRank(level string) int {
	for i, v := range LogLevels {
		if level == v {
			return i
		}
	}
	return -1
}

// Loggers: a pod's own (LoggerPod) and those of its parts. LoggersOf says
// which a pod type has.
const (
	LoggerPod         = "pod"
	LoggerLibraries   = "libraries"
	LoggerMaintenance = "maintenance"
	LoggerLogging     = "logging"
	LoggerWorker      = "worker"
	LoggerJobs        = "jobs"
	LoggerController  = "controller"
	LoggerArchiver    = "archiver"
	LoggerEndpoints   = "endpoints"
	LoggerGraphDB     = "graphdb"
	LoggerPortal      = "portal"
)

// LoggersOf returns the loggers of a pod of podType: the common ones,
// then its type's.
func LoggersOf(podType string) []string {
	l := []string{LoggerPod, LoggerLibraries, LoggerMaintenance, LoggerLogging}
	switch podType {
	case Worker:
		l = append(l, LoggerWorker, LoggerJobs)
	case Scheduler:
		l = append(l, LoggerController, LoggerArchiver)
	case EventGateway:
		l = append(l, LoggerEndpoints)
	case GraphDB:
		l = append(l, LoggerGraphDB)
	case Portal:
		l = append(l, LoggerPortal)
	}
	return l
}

// Log handlers: every pod has both.
const (
	// HandlerFile writes to the pod process's log: TargetDefault (the
	// log fabricd was given: $FABRIC_HOME/local/fabric.log for the local
	// fabric, else stderr) or TargetStderr.
	HandlerFile = "file"
	// HandlerNATS publishes LogLines on its target, a subject under
	// SubjectLogs (default LogSubject of the pod): watch logs shows them.
	HandlerNATS = "nats"
)

// LogHandlers are the handlers' names.
var LogHandlers = []string{HandlerFile, HandlerNATS}

// Targets of the file handler.
const (
	TargetDefault = "default"
	TargetStderr  = "stderr"
)

// CheckTarget checks the target of a handler: the file handler's is
// TargetDefault or TargetStderr; the NATS handler's a subject under
// SubjectLogs (no wildcard), or TargetDefault (the pod's LogSubject).
func CheckTarget(handler, target string) error {
	switch handler {
	case HandlerFile:
		if target == TargetDefault || target == TargetStderr {
			return nil
		}
		return fmt.Errorf("the file handler's target is %s (the pod's log) or %s, not %q", TargetDefault, TargetStderr, target)
	case HandlerNATS:
		if target == TargetDefault {
			return nil
		}
		rest, ok := strings.CutPrefix(target, SubjectLogs+".")
		if !ok || rest == "" || strings.ContainsAny(rest, "*> \t\r\n") || strings.Contains(rest, "..") || strings.HasSuffix(rest, ".") {
			return fmt.Errorf("the nats handler's target is a subject under %s. (such as %s), not %q", SubjectLogs, LogSubject(Worker, "1a2b3c4d"), target)
		}
		return nil
	}
	return fmt.Errorf("no log handler %q: one of %s", handler, strings.Join(LogHandlers, ", "))
}

// LogHandler is a handler's settings: the least level it writes, and
// where.
type LogHandler struct {
	Level  string `json:"level" yaml:"level"`
	Target string `json:"target" yaml:"target"`
}

// LoggingConfig is a pod's logging configuration: the level of each
// logger and the handlers by name. In a change (LoggingRequest.Config),
// what is absent is left as it is.
type LoggingConfig struct {
	Loggers  map[string]string     `json:"loggers" yaml:"loggers"`
	Handlers map[string]LogHandler `json:"handlers" yaml:"handlers"`
}

// Logging operations (LoggingRequest.Op).
const (
	// LoggingGet reports the configuration.
	LoggingGet = "get"
	// LoggingSet merges Config into it.
	LoggingSet = "set"
	// LoggingLevel sets every logger to Level.
	LoggingLevel = "level"
	// LoggingHandler sets Handler's Level and Target (each when not
	// empty).
	LoggingHandler = "handler"
)

// LoggingRequest asks a pod for its logging configuration or changes it.
type LoggingRequest struct {
	Op      string         `json:"op"`
	Config  *LoggingConfig `json:"config,omitempty"`
	Level   string         `json:"level,omitempty"`
	Handler string         `json:"handler,omitempty"`
	Target  string         `json:"target,omitempty"`
}

// PodLogging is a pod's answer: its logging configuration (after the
// change asked).
type PodLogging struct {
	PodID    string        `json:"pod_id"`
	PodType  string        `json:"pod_type"`
	Hostname string        `json:"hostname"`
	Config   LoggingConfig `json:"config"`
}

// PodTarget selects the pods of a request: those with one of PodIDs, or
// every live pod of PodType.
type PodTarget struct {
	PodType string   `json:"pod_type,omitempty"`
	PodIDs  []string `json:"pod_ids,omitempty"`
}

// LoggingReport is what the pods a logging request asked answered: the
// pods that answered (by pod id), how many answered and how many were
// asked, and those that did not answer.
type LoggingReport struct {
	Pods      []PodLogging `json:"pods"`
	Responded int          `json:"responded"`
	Targeted  int          `json:"targeted"`
	Missing   []string     `json:"missing,omitempty"`
}

// SubjectPodAsk asks the api-server to send a request to the pods a
// PodAsk selects, on one of their endpoints (EndpointLogging or
// EndpointObjInfo), and to gather their answers (a PodAnswers, or an
// Error).
const SubjectPodAsk = "fabric.api.podask"

// PodAskEndpoints are the endpoints a PodAsk may name.
var PodAskEndpoints = []string{EndpointLogging, EndpointObjInfo}

// PodAsk is a request for the pods Target selects on Endpoint, with
// Request as its body, answered within WaitSeconds.
type PodAsk struct {
	Target      PodTarget       `json:"target"`
	Endpoint    string          `json:"endpoint"`
	Request     json.RawMessage `json:"request,omitempty"`
	WaitSeconds float64         `json:"wait_seconds"`
}

// PodAnswers are the answers of the pods a PodAsk asked: each pod's
// (PodIDs[i] answered Answers[i], as the pod answered it: an Error or
// the endpoint's answer), and those that did not answer in time or are
// gone.
type PodAnswers struct {
	PodIDs  []string          `json:"pod_ids"`
	Answers []json.RawMessage `json:"answers"`
	Missing []string          `json:"missing,omitempty"`
}
