package upgradeplan

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/fabricops/fabric/fabric/lib/deploydir"
	"golang.org/x/sys/unix"
	"gopkg.in/yaml.v3"
)

// Usage is a file system's size and free space, in bytes.
type Usage struct {
	// Total is its size, Free what is free, Avail what is free to others
	// than root.
	Total, Free, Avail uint64
}

// Percent is the share of the file system in use, as df shows it
// (rounded up).
func (u Usage) Percent() int {
	used := u.Total - u.Free
	if used+u.Avail == 0 {
		return 0
	}
	return int((used*100 + used + u.Avail - 1) / (used + u.Avail))
}

// Statfs reads the usage of the file system of path.
func Statfs(path string) (Usage, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return Usage{}, err
	}
	b := uint64(st.Bsize)
	return Usage{Total: st.Blocks * b, Free: st.Bfree * b, Avail: st.Bavail * b}, nil
}

// Limits of SPEC 8.
const (
	// MaxDiskPercent is the disk use a host must stay below.
	MaxDiskPercent = 80
	// MinRegistryFree is the free space the registry's data volume needs.
	MinRegistryFree = 25 << 30
)

// Check is a prerequisite checked, for plan and status.
type Check struct {
	Name   string `json:"name"`
	Result string `json:"result"`
}

// check checks the prerequisites of an upgrade that has not started
// (st has no record): the release pair, the files, the disk, the
// versions in force and the registry's volume. Once started, only the
// release pair and the files are checked. The first failure is the
// error, one line naming it.
func check(o *Options, st *State) ([]Check, error) {
	if o.From != deploydir.From || o.To != deploydir.To {
		return nil, fmt.Errorf("only the upgrade from %s to %s is known, not %s to %s", deploydir.From, deploydir.To, o.From, o.To)
	}
	if st.From != "" && (st.From != o.From || st.To != o.To) {
		return nil, fmt.Errorf("%s records the upgrade from %s to %s", StateFile, st.From, st.To)
	}
	if info, err := os.Stat(o.Dir); err != nil || !info.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", o.Dir)
	}
	var checks []Check
	files := map[string][]byte{}
	for _, name := range deploydir.Required {
		data, err := os.ReadFile(filepath.Join(o.Dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no %s (a deployment directory holds %s)", o.Dir, name, strings.Join(deploydir.Required, ", "))
		}
		if err != nil {
			return nil, err
		}
		files[name] = data
	}
	if err := parseAll(files); err != nil {
		return nil, err
	}
	checks = append(checks, Check{"files", "all of " + strings.Join(deploydir.Required, ", ") + " read"})
	if len(st.Steps) > 0 {
		return append(checks, Check{"progress", fmt.Sprintf("%d steps recorded in %s", len(st.Steps), StateFile)}), nil
	}
	statfs := o.Statfs
	if statfs == nil {
		statfs = Statfs
	}
	u, err := statfs(o.Dir)
	if err != nil {
		return nil, fmt.Errorf("reading the disk use of %s: %v", o.Dir, err)
	}
	if p := u.Percent(); p >= MaxDiskPercent {
		return nil, fmt.Errorf("the disk of %s is %d%% used: the upgrade needs it below %d%% (free space first)", o.Dir, p, MaxDiskPercent)
	} else {
		checks = append(checks, Check{"disk", fmt.Sprintf("%d%% used (below %d%%)", p, MaxDiskPercent)})
	}
	v, err := deploydir.ReadVersions(files[deploydir.Infra], files[deploydir.Platform])
	if err != nil {
		return nil, err
	}
	switch {
	case v.Platform == o.To:
		return nil, fmt.Errorf("%s is at %s already: nothing to upgrade", o.Dir, o.To)
	case v.Platform != o.From:
		return nil, fmt.Errorf("%s is at %s, not %s: the upgrade starts from %s", o.Dir, v.Platform, o.From, o.From)
	case v.Infra != deploydir.InfraFrom:
		return nil, fmt.Errorf("%s: the infra services are at %s, not %s", deploydir.Infra, v.Infra, deploydir.InfraFrom)
	}
	checks = append(checks, Check{"versions", fmt.Sprintf("platform %s, infra %s, load balancer %s", v.Platform, v.Infra, v.LoadBalancer)})
	c, err := registryCheck(files[deploydir.Infra], statfs)
	if err != nil {
		return nil, err
	}
	return append(checks, c), nil
}

// parseAll parses each required file.
func parseAll(files map[string][]byte) error {
	if err := deploydir.CheckValues(files[deploydir.Values]); err != nil {
		return fmt.Errorf("%s: %v", deploydir.Values, err)
	}
	if err := deploydir.CheckPolicy(files[deploydir.Policy]); err != nil {
		return err
	}
	if _, err := deploydir.ParseHAProxy(files[deploydir.HAProxy]); err != nil {
		return err
	}
	if _, err := deploydir.ParseNATS(files[deploydir.NATS]); err != nil {
		return err
	}
	for _, name := range []string{deploydir.Infra, deploydir.Platform} {
		if _, err := deploydir.Images(files[name]); err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
	}
	return nil
}

// registryCheck checks the free space of the registry's data volume
// when it is on this host: the host side of the registry service's
// /var/lib/registry mount in the infra compose file.
func registryCheck(infra []byte, statfs func(string) (Usage, error)) (Check, error) {
	vol := registryVolume(infra)
	if vol == "" {
		return Check{"registry", "no registry data volume in " + deploydir.Infra}, nil
	}
	if _, err := os.Stat(vol); err != nil {
		return Check{"registry", vol + " is not on this host: check it on the registry VM"}, nil
	}
	u, err := statfs(vol)
	if err != nil {
		return Check{}, fmt.Errorf("reading the disk use of the registry volume %s: %v", vol, err)
	}
	if p := u.Percent(); p >= MaxDiskPercent || u.Avail < MinRegistryFree {
		return Check{}, fmt.Errorf("the registry volume %s is %d%% used with %d GB free: clean old tags first (it needs below %d%% and 25 GB free)", vol, p, u.Avail>>30, MaxDiskPercent)
	}
	return Check{"registry", fmt.Sprintf("%s: %d GB free", vol, u.Avail>>30)}, nil
}

// registryVolume is the host path mounted at /var/lib/registry in a
// compose file, or "".
func registryVolume(infra []byte) string {
	var doc struct {
		Services map[string]struct {
			Volumes []string `yaml:"volumes"`
		} `yaml:"services"`
	}
	if yaml.Unmarshal(infra, &doc) != nil {
		return ""
	}
	for _, s := range doc.Services {
		for _, v := range s.Volumes {
			if host, target, ok := strings.Cut(v, ":"); ok && strings.TrimSuffix(strings.SplitN(target, ":", 2)[0], "/") == "/var/lib/registry" {
				return host
			}
		}
	}
	return ""
}
