package blueprint

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// Finding is a row of an audit report (type, severity, message).
type Finding struct {
	Type     string `json:"type"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

// Audit types and severities (SPEC 2.8, 7).
const (
	VerifyPipeline = "Verify Pipeline"
	VerifySite     = "Verify Site"
	VerifySource   = "Verify Source"
	VerifyStream   = "Verify Persistent Stream"

	Info    = "INFO"
	Warning = "WARNING"
	Error   = "ERROR"
)

// Audit checks a blueprint against the fabric: each entry's pipeline
// version is published (ERROR when not), its site matches a live worker
// (ERROR when none does), its pipeline's sources and the persistent
// streams it reads and writes exist.
func Audit(ctx context.Context, l Lookup, b *Blueprint, rs []Resolved) ([]Finding, error) {
	var out []Finding
	add := func(typ, sev, format string, args ...any) {
		out = append(out, Finding{typ, sev, fmt.Sprintf(format, args...)})
	}
	sites, err := l.WorkerSites(ctx)
	if err != nil {
		return nil, err
	}
	streams := map[string]Dependency{}
	checkedSource := map[string]bool{}
	for _, r := range rs {
		what := fmt.Sprintf("%s pipeline %s (label %s)", r.Kind, r.Name, r.Key())
		if r.OK {
			add(VerifyPipeline, Info, "%s: version %s is published", what, r.Pipeline.Version)
		} else {
			add(VerifyPipeline, Error, "%s: %s", what, r.Why)
		}
		match, err := r.SiteMatcher()
		if err != nil {
			add(VerifySite, Error, "%s: %v", what, err)
		} else {
			n := 0
			for _, s := range sites {
				if match(s) {
					n++
				}
			}
			site := r.Site
			if site == "" {
				site = "any site"
			} else {
				site = fmt.Sprintf("site %q", site)
			}
			if n == 0 {
				add(VerifySite, Error, "%s: no site or active worker matches %s", what, site)
			} else {
				verb := "match"
				if n == 1 {
					verb = "matches"
				}
				add(VerifySite, Info, "%s: %d active worker%s %s %s", what, n, plural(n), verb, site)
			}
		}
		if !r.OK {
			continue
		}
		names := make([]string, 0, len(r.Pipeline.Sources))
		for k := range r.Pipeline.Sources {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			src := r.Pipeline.Sources[k]
			name := src.Name
			if name == "" {
				name = k
			}
			if checkedSource[src.Type+"\x00"+name] {
				continue
			}
			checkedSource[src.Type+"\x00"+name] = true
			var ok bool
			var err error
			switch strings.ToLower(src.Type) {
			case "stream":
				ok, err = l.StreamExists(ctx, name)
			case "dataset":
				ok, err = l.DatasetExists(ctx, name)
			default:
				add(VerifySource, Warning, "source %s of type %s: not checked here (check-credentials checks it from a worker)", name, src.Type)
				continue
			}
			if err != nil {
				return nil, err
			}
			if ok {
				add(VerifySource, Info, "source %s (%s) exists", name, src.Type)
			} else {
				add(VerifySource, Error, "source %s (%s) does not exist", name, src.Type)
			}
		}
		for _, d := range PipelineUses(r.Pipeline) {
			if d.Type == DepStream {
				have := streams[d.Name]
				have.Name, have.Read, have.Write = d.Name, have.Read || d.Read, have.Write || d.Write
				streams[d.Name] = have
			}
		}
	}
	names := make([]string, 0, len(streams))
	for n := range streams {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		ok, err := l.StreamExists(ctx, n)
		if err != nil {
			return nil, err
		}
		use := map[bool]string{true: "read", false: "written"}[streams[n].Read]
		if ok {
			add(VerifyStream, Info, "stream %s (%s) exists", n, use)
		} else {
			add(VerifyStream, Error, "stream %s (%s) does not exist", n, use)
		}
	}
	return out, nil
}

// Count returns how many findings have each severity.
func Count(fs []Finding) (errors, warnings int) {
	for _, f := range fs {
		switch f.Severity {
		case Error:
			errors++
		case Warning:
			warnings++
		}
	}
	return errors, warnings
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
