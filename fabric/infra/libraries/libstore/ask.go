package libstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/libraries"
	"github.com/fabricops/fabric/fabric/infra/registry"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Targets returns the pod ids a library list or install asks: with
// t.PodIDs, those ids (a pod that is not live is asked too, and counts as
// one that did not answer) less the live pods of another type, or at a
// site t.Site does not match when it is given too; otherwise the live
// pods of t.PodType whose site the regular expression t.Site matches
// whole.
func Targets(regs []api.Registration, t api.LibraryTarget) ([]string, error) {
	site := func(string) bool { return true }
	if t.Site != "" || len(t.PodIDs) == 0 {
		re, err := regexp.Compile(t.Site)
		if err != nil {
			return nil, fmt.Errorf("--site %q is not a valid regular expression: %v", t.Site, err)
		}
		re.Longest()
		site = func(s string) bool {
			loc := re.FindStringIndex(s)
			return loc != nil && loc[0] == 0 && loc[1] == len(s)
		}
	}
	ids := registry.Pick(regs, t.PodIDs, func(r api.Registration) bool { return r.PodType == t.PodType && site(r.Site) })
	switch {
	case len(ids) > 0:
		return ids, nil
	case len(t.PodIDs) > 0:
		return nil, fmt.Errorf("no %s pod among --pod-ids %s", t.PodType, strings.Join(t.PodIDs, " "))
	}
	return nil, fmt.Errorf("no live %s pod at a site matching %q", t.PodType, t.Site)
}

// Ask sends req to the pods t selects, at once, and gathers their answers
// within wait: a pod that is gone fails at once, one that does not answer
// in time is reported missing, and one that the request's QL query does
// not match is not counted.
func Ask(ctx context.Context, nc *nats.Conn, t api.LibraryTarget, req api.LibrariesRequest, wait time.Duration) (api.LibraryReport, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return api.LibraryReport{}, err
	}
	lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	regs, err := registry.List(lctx, js)
	cancel()
	if err != nil {
		return api.LibraryReport{}, err
	}
	ids, err := Targets(regs, t)
	if err != nil {
		return api.LibraryReport{}, err
	}
	req.QLQuery = t.QLQuery
	data, err := json.Marshal(req)
	if err != nil {
		return api.LibraryReport{}, err
	}
	type answer struct {
		pod  api.PodLibraries
		ok   bool
		skip bool
		err  string // the pod's error answer
	}
	answers := make([]answer, len(ids))
	for i, data := range registry.AskEach(ctx, nc, ids, api.EndpointLibraries, data, wait) {
		if data == nil {
			continue // gone, or no answer in time: missing
		}
		id := ids[i]
		var e api.Error
		if json.Unmarshal(data, &e) == nil && e.Error != "" {
			answers[i] = answer{ok: true, err: e.Error, pod: api.PodLibraries{PodID: id,
				Install: []api.LibraryInstallRow{{PodID: id, Status: "FAILED", Message: e.Error}}}}
			continue
		}
		var p api.PodLibraries
		if json.Unmarshal(data, &p) != nil {
			continue
		}
		answers[i] = answer{pod: p, ok: true, skip: p.Skipped}
	}
	if err := ctx.Err(); err != nil {
		return api.LibraryReport{}, err
	}
	rep := api.LibraryReport{Pods: []api.PodLibraries{}}
	for i, a := range answers {
		if a.err != "" && req.Op == "list" {
			// A list has no row to show it in (an install has).
			return api.LibraryReport{}, fmt.Errorf("pod %s: %s", ids[i], a.err)
		}
		switch {
		case a.skip:
		case a.ok:
			rep.Pods = append(rep.Pods, a.pod)
			rep.Responded++
			rep.Targeted++
		default:
			rep.Missing = append(rep.Missing, ids[i])
			rep.Targeted++
		}
	}
	sort.Slice(rep.Pods, func(i, j int) bool { return rep.Pods[i].PodID < rep.Pods[j].PodID })
	if rep.Targeted == 0 {
		return rep, errors.New("no pod matches --ql-query")
	}
	return rep, nil
}

// Run does a library list or install: it reads the object store's
// library files, resolves an install's names (a library's newest file, a
// file name, or "all": every library's newest file) and asks the pods
// (Ask) within the request's wait.
func Run(ctx context.Context, nc *nats.Conn, s *store.Store, req api.LibrariesAsk) (api.LibraryReport, error) {
	wait := time.Duration(req.WaitSeconds * float64(time.Second))
	if wait <= 0 {
		return api.LibraryReport{}, errors.New("the wait must be more than 0 seconds")
	}
	files, err := Files(ctx, s)
	if err != nil {
		return api.LibraryReport{}, err
	}
	latest := Latest(files)
	switch req.Op {
	case "list":
		return Ask(ctx, nc, req.Target, api.LibrariesRequest{Op: "list", Latest: latest}, wait)
	case "install":
		install, err := pick(req.Libraries, files, latest)
		if err != nil {
			return api.LibraryReport{}, err
		}
		return Ask(ctx, nc, req.Target, api.LibrariesRequest{Op: "install", Latest: latest, Install: install}, wait)
	}
	return api.LibraryReport{}, fmt.Errorf("unknown library operation %q", req.Op)
}

// pick resolves the names of an install into files.
func pick(names []string, files, latest []api.LibraryFile) ([]api.LibraryFile, error) {
	var out []api.LibraryFile
	seen := map[string]bool{}
	add := func(f api.LibraryFile) {
		if !seen[f.Filename] {
			seen[f.Filename] = true
			out = append(out, f)
		}
	}
	for _, name := range names {
		if name == "all" {
			for _, f := range latest {
				add(f)
			}
			continue
		}
		found := false
		for _, f := range latest {
			if f.Package == libraries.Normalize(name) {
				add(f)
				found = true
			}
		}
		for _, f := range files {
			if !found && f.Filename == name {
				add(f)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("no library %s in the object store (library upload stores one)", name)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("the object store has no library to install")
	}
	return out, nil
}
