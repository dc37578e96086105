package pod

import (
	"encoding/json"
	"fmt"
	"log"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/nats-io/nats.go/micro"
)

// logState is a pod's logging configuration (api.LoggingConfig): a level
// per logger and the two handlers'. Its zero value is the default: every
// logger at info, the handlers at debug (they write what the loggers
// pass) on their default targets.
type logState struct {
	mu sync.RWMutex
	// loggers are the levels set (rank, api.LevelRank); a logger not in
	// it is at info.
	loggers map[string]int
	// file and nats are the handlers' levels (rank: 0 is debug) and
	// targets ("" is the default: the pod's log, its LogSubject).
	fileLevel, natsLevel   int
	fileTarget, natsTarget string
}

var (
	infoRank     = api.LevelRank(api.LevelInfo)
	stderrLogger = log.New(os.Stderr, "", log.LstdFlags)
)

func (s *logState) loggerRank(name string) int {
	if r, ok := s.loggers[name]; ok {
		return r
	}
	return infoRank
}

// Log logs a line of the pod's part logger (api.LoggersOf) at level
// (api.LogLevels): written by each handler whose level it reaches, when
// it reaches the logger's.
func (p *Pod) Log(logger, level, format string, args ...any) {
	rank := api.LevelRank(level)
	st := &p.logs
	st.mu.RLock()
	pass := rank >= st.loggerRank(logger)
	toFile := pass && rank >= st.fileLevel
	toNATS := pass && rank >= st.natsLevel
	fileTarget, subject := st.fileTarget, st.natsTarget
	st.mu.RUnlock()
	if !toFile && !toNATS {
		return
	}
	msg := fmt.Sprintf(format, args...)
	if toFile {
		l := p.Logger
		if fileTarget == api.TargetStderr {
			l = stderrLogger
		}
		if l != nil {
			mark := ""
			if level != api.LevelInfo {
				mark = strings.ToUpper(level) + " "
			}
			l.Printf("[%s %s %s] %s%s", p.Tenant, p.Type, p.ID, mark, msg)
		}
	}
	if toNATS && p.nc != nil {
		if subject == "" {
			subject = api.LogSubject(p.Type, p.ID)
		}
		data, _ := json.Marshal(api.LogLine{Time: api.Timestamp(time.Now()), PodType: p.Type, PodID: p.ID, Level: level, Logger: logger, Message: msg})
		_ = p.nc.Publish(subject, data)
	}
}

// Debugf logs a debug line of logger: written only while the logger and
// a handler are at debug (set-pod-log-level debug).
func (p *Pod) Debugf(logger, format string, args ...any) {
	p.Log(logger, api.LevelDebug, format, args...)
}

// Infof logs an info line of logger.
func (p *Pod) Infof(logger, format string, args ...any) {
	p.Log(logger, api.LevelInfo, format, args...)
}

// Warnf logs a warning of logger.
func (p *Pod) Warnf(logger, format string, args ...any) {
	p.Log(logger, api.LevelWarning, format, args...)
}

// DebugEnabled reports whether a debug line of logger would be written
// anywhere: a line costly to make is made only then.
func (p *Pod) DebugEnabled(logger string) bool {
	st := &p.logs
	st.mu.RLock()
	defer st.mu.RUnlock()
	d := api.LevelRank(api.LevelDebug)
	return d >= st.loggerRank(logger) && (d >= st.fileLevel || d >= st.natsLevel)
}

// logf is Logf's: an info line, of the logger its message begins with
// ("controller: ...") when it is one of the pod's, else of the pod.
func (p *Pod) logf(format string, args ...any) {
	logger := api.LoggerPod
	if name, _, ok := strings.Cut(format, ":"); ok && slices.Contains(api.LoggersOf(p.Type), name) {
		logger = name
	}
	p.Log(logger, api.LevelInfo, format, args...)
}

// LoggingConfig returns the pod's logging configuration.
func (p *Pod) LoggingConfig() api.LoggingConfig {
	st := &p.logs
	st.mu.RLock()
	defer st.mu.RUnlock()
	c := api.LoggingConfig{Loggers: map[string]string{}, Handlers: map[string]api.LogHandler{}}
	for _, name := range api.LoggersOf(p.Type) {
		c.Loggers[name] = api.LogLevels[st.loggerRank(name)]
	}
	ft, nt := st.fileTarget, st.natsTarget
	if ft == "" {
		ft = api.TargetDefault
	}
	if nt == "" {
		nt = api.LogSubject(p.Type, p.ID)
	}
	c.Handlers[api.HandlerFile] = api.LogHandler{Level: api.LogLevels[st.fileLevel], Target: ft}
	c.Handlers[api.HandlerNATS] = api.LogHandler{Level: api.LogLevels[st.natsLevel], Target: nt}
	return c
}

// ChangeLogging applies a logging request (api.LoggingRequest) at once,
// all of it or, when a part is not valid, none of it; it returns the
// configuration after the change and what changed, one line.
func (p *Pod) ChangeLogging(req api.LoggingRequest) (api.LoggingConfig, string, error) {
	loggers := map[string]int{}
	type handlerChange struct{ level, target string }
	handlers := map[string]handlerChange{}
	var what []string
	switch req.Op {
	case api.LoggingGet:
		return p.LoggingConfig(), "", nil
	case api.LoggingLevel:
		l, err := api.ParseLevel(req.Level)
		if err != nil {
			return api.LoggingConfig{}, "", err
		}
		for _, name := range api.LoggersOf(p.Type) {
			loggers[name] = api.LevelRank(l)
		}
		what = append(what, "every logger at "+l)
	case api.LoggingSet:
		if req.Config == nil {
			return api.LoggingConfig{}, "", fmt.Errorf("no logging configuration given")
		}
		names := make([]string, 0, len(req.Config.Loggers))
		for name := range req.Config.Loggers {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			if !slices.Contains(api.LoggersOf(p.Type), name) {
				return api.LoggingConfig{}, "", fmt.Errorf("a %s pod has no logger %q: its loggers are %s", p.Type, name, strings.Join(api.LoggersOf(p.Type), ", "))
			}
			l, err := api.ParseLevel(req.Config.Loggers[name])
			if err != nil {
				return api.LoggingConfig{}, "", fmt.Errorf("logger %s: %v", name, err)
			}
			loggers[name] = api.LevelRank(l)
			what = append(what, name+" at "+l)
		}
		for _, name := range api.LogHandlers {
			if h, ok := req.Config.Handlers[name]; ok {
				handlers[name] = handlerChange{h.Level, h.Target}
			}
		}
		for name := range req.Config.Handlers {
			if !slices.Contains(api.LogHandlers, name) {
				return api.LoggingConfig{}, "", fmt.Errorf("no log handler %q: one of %s", name, strings.Join(api.LogHandlers, ", "))
			}
		}
	case api.LoggingHandler:
		if !slices.Contains(api.LogHandlers, req.Handler) {
			return api.LoggingConfig{}, "", fmt.Errorf("no log handler %q: one of %s", req.Handler, strings.Join(api.LogHandlers, ", "))
		}
		if req.Level == "" && req.Target == "" {
			return api.LoggingConfig{}, "", fmt.Errorf("nothing to change: give the handler's level or target")
		}
		handlers[req.Handler] = handlerChange{req.Level, req.Target}
	default:
		return api.LoggingConfig{}, "", fmt.Errorf("unknown logging operation %q", req.Op)
	}
	// Every handler change is checked before any is made.
	for _, name := range api.LogHandlers {
		h, ok := handlers[name]
		if !ok {
			continue
		}
		if h.level != "" {
			l, err := api.ParseLevel(h.level)
			if err != nil {
				return api.LoggingConfig{}, "", fmt.Errorf("handler %s: %v", name, err)
			}
			h.level = l
			what = append(what, "handler "+name+" at "+l)
		}
		if h.target != "" {
			if err := api.CheckTarget(name, h.target); err != nil {
				return api.LoggingConfig{}, "", err
			}
			what = append(what, "handler "+name+" to "+h.target)
		}
		handlers[name] = h
	}
	st := &p.logs
	st.mu.Lock()
	if st.loggers == nil {
		st.loggers = map[string]int{}
	}
	for name, r := range loggers {
		st.loggers[name] = r
	}
	for name, h := range handlers {
		level, target := &st.fileLevel, &st.fileTarget
		if name == api.HandlerNATS {
			level, target = &st.natsLevel, &st.natsTarget
		}
		if h.level != "" {
			*level = api.LevelRank(h.level)
		}
		switch {
		case h.target == api.TargetDefault:
			*target = ""
		case h.target != "":
			*target = h.target
		}
	}
	st.mu.Unlock()
	return p.LoggingConfig(), strings.Join(what, ", "), nil
}

// handleLogging answers pod-logging, set-pod-log-level and
// pod-logging-handler-set (api.EndpointLogging).
func (p *Pod) handleLogging(r micro.Request) {
	var req api.LoggingRequest
	if err := json.Unmarshal(r.Data(), &req); err != nil {
		respondJSON(r, api.Error{Error: "bad logging request: " + err.Error()})
		return
	}
	c, what, err := p.ChangeLogging(req)
	if err != nil {
		respondJSON(r, api.Error{Error: err.Error()})
		return
	}
	if what != "" {
		p.Log(api.LoggerLogging, api.LevelInfo, "logging: %s", what)
	}
	respondJSON(r, api.PodLogging{PodID: p.ID, PodType: p.Type, Hostname: p.hostname, Config: c})
}
