package runner

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/lib/release"
	"github.com/fabricops/fabric/fabric/pods/pod"
)

// DefaultDrainTimeout is how long an upgrade waits for a process's jobs
// to finish unless the request says.
const DefaultDrainTimeout = 5 * time.Minute

var (
	podIDRe     = regexp.MustCompile(`^[0-9a-f]{8}$`)
	buildNameRe = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)
)

// podID is the id of the i-th pod: ids[i] when given, else a new one.
func podID(ids []string, i int) string {
	if i < len(ids) && podIDRe.MatchString(ids[i]) {
		return ids[i]
	}
	return pod.NewID()
}

// upgrade answers a pod's upgrade request: it checks the build, then, in
// the background, puts every pod of the runner in maintenance, waits for
// their jobs to end (at most the request's timeout: past it the pods are
// taken out of maintenance and the upgrade is given up, logged), stops
// them gracefully and hands the process to the new build with the same
// pod ids.
func (r *Runner) upgrade(req api.UpgradeRequest) (api.UpgradeAccepted, error) {
	if r.opts.UpgradesDir == "" {
		return api.UpgradeAccepted{}, errors.New("this process takes no upgrade: its host runs it without an upgrades directory (fabricd --upgrades-dir)")
	}
	if r.opts.UpgradeToken != "" && subtle.ConstantTimeCompare([]byte(req.Token), []byte(r.opts.UpgradeToken)) != 1 {
		return api.UpgradeAccepted{}, errors.New("this process runs the pods of several tenants: only its owner upgrades it (client fabric upgrade on its machine, with its FABRIC_HOME)")
	}
	if !buildNameRe.MatchString(req.Build) || strings.Trim(req.Build, ".") == "" {
		return api.UpgradeAccepted{}, fmt.Errorf("%q names no build: a build is a directory's name in the host's upgrades directory", req.Build)
	}
	dir := filepath.Join(r.opts.UpgradesDir, req.Build)
	if _, err := os.Stat(dir); err != nil {
		host, _ := os.Hostname()
		return api.UpgradeAccepted{}, fmt.Errorf("host %s has no build %s in its upgrades directory %s: copy the build there first", host, req.Build, r.opts.UpgradesDir)
	}
	b, err := release.Open(dir)
	if err != nil {
		return api.UpgradeAccepted{}, err
	}
	if err := b.Verify("fabricd"); err != nil {
		return api.UpgradeAccepted{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		return api.UpgradeAccepted{}, errors.New("the process is stopping")
	}
	if r.upgrading {
		return api.UpgradeAccepted{}, errors.New("an upgrade of this process is under way")
	}
	r.upgrading = true
	acc := api.UpgradeAccepted{Version: b.Version}
	for _, s := range r.slots {
		acc.PodIDs = append(acc.PodIDs, s.spec.ID)
	}
	timeout := time.Duration(req.TimeoutSeconds * float64(time.Second))
	if timeout <= 0 {
		timeout = DefaultDrainTimeout
	}
	go r.handOver(b, timeout)
	return acc, nil
}

// handOver drains the pods and runs the build b in their place.
func (r *Runner) handOver(b *release.Build, timeout time.Duration) {
	r.logf("upgrade to %s: pods into maintenance, waiting at most %s for their jobs", b.Version, timeout)
	pods := r.running()
	for _, p := range pods {
		p.SetMaintenance(true)
	}
	if active := waitIdle(pods, timeout); active > 0 {
		for _, p := range pods {
			p.SetMaintenance(false)
		}
		r.mu.Lock()
		r.upgrading = false
		r.mu.Unlock()
		r.logf("upgrade to %s given up: %d job(s) still running after %s; the pods are out of maintenance", b.Version, active, timeout)
		return
	}
	ids := r.IDs()
	r.Stop()
	r.logf("upgrade to %s: pods stopped, running %s", b.Version, b.Path("fabricd"))
	err := r.opts.Upgrade(b.Dir, ids)
	r.logf("upgrade to %s failed: %v", b.Version, fmt.Errorf("running the new build: %w", err))
}

// running returns the runner's running pods.
func (r *Runner) running() []*pod.Pod {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*pod.Pod
	for _, s := range r.slots {
		if s.pod != nil {
			out = append(out, s.pod)
		}
	}
	return out
}

// Drain puts the runner's pods in maintenance and waits, at most
// timeout, for their jobs to end, then stops them; past the timeout the
// pods leave maintenance and the drain fails.
func (r *Runner) Drain(timeout time.Duration) error {
	pods := r.running()
	for _, p := range pods {
		p.SetMaintenance(true)
	}
	if n := waitIdle(pods, timeout); n > 0 {
		for _, p := range pods {
			p.SetMaintenance(false)
		}
		return fmt.Errorf("%d job(s) still running after %s", n, timeout)
	}
	r.Stop()
	return nil
}

// IDs are the runner's pods' ids, in the order of its options' Pods.
func (r *Runner) IDs() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	ids := make([]string, len(r.slots))
	for i, s := range r.slots {
		ids[i] = s.spec.ID
	}
	return ids
}

// waitIdle waits, at most timeout, until the pods run no job; it returns
// the jobs still running (0: idle).
func waitIdle(pods []*pod.Pod, timeout time.Duration) int {
	deadline := time.Now().Add(timeout)
	for {
		active := 0
		for _, p := range pods {
			active += p.ActiveJobs()
		}
		if active == 0 || time.Now().After(deadline) {
			return active
		}
		time.Sleep(100 * time.Millisecond)
	}
}
