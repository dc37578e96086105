package api

import (
	"regexp"
	"strings"
	"sync"
)

// EndpointMaintenance is the pod endpoint that puts a pod in maintenance
// mode or takes it out (a MaintenanceRequest; answered with a
// MaintenanceState). A pod in maintenance takes no new jobs: a worker
// finishes its running ones and hands its service instances back to the
// controller, which starts them elsewhere.
const EndpointMaintenance = "maintenance"

// EndpointUpgrade is the pod endpoint that replaces the pod's process with
// another build (an UpgradeRequest; answered with an UpgradeAccepted at
// once): every pod of the process goes into maintenance, its jobs finish,
// the pods stop, and the process runs the new build with the same pod
// ids.
const EndpointUpgrade = "upgrade"

// MaintenanceRequest puts a pod in maintenance mode (On) or takes it out.
type MaintenanceRequest struct {
	On bool `json:"on"`
}

// MaintenanceState is a pod's answer: whether it is in maintenance and
// the jobs it still runs.
type MaintenanceState struct {
	PodID       string `json:"pod_id"`
	PodType     string `json:"pod_type"`
	Maintenance bool   `json:"maintenance"`
	ActiveJobs  int    `json:"active_jobs"`
}

// UpgradeRequest asks a pod's process to run the build named Build, a
// build directory (fabric/lib/release) of that name in the host's
// upgrades directory (the host's operator puts builds there: a request
// names one, never a path), draining its jobs for at most TimeoutSeconds
// first.
type UpgradeRequest struct {
	Build          string  `json:"build"`
	TimeoutSeconds float64 `json:"timeout_seconds"`
	// Token is the local fabric's upgrade token (its owner's file, see
	// local.UpgradeToken): the local fabric runs several tenants in one
	// process, and only its owner may replace that process.
	Token string `json:"token,omitempty"`
}

// UpgradeAccepted is the answer to an UpgradeRequest: the process's pods
// that will come back on Version, with the same ids.
type UpgradeAccepted struct {
	Version string   `json:"version"`
	PodIDs  []string `json:"pod_ids"`
	ProcID  int      `json:"proc_id"`
	Error   string   `json:"error,omitempty"`
}

var (
	semverCore = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^v?(\d+)\.(\d+)\.(\d+)(.*)$`) })
	// semver is semver.org's own expression.
	semver = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)
	})
)
var notIdent = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^0-9A-Za-z-]+`) })

// ServiceVersionOf is the semantic version (semver.org, as NATS micro
// services announce theirs) of a pod of build: a semantic version as it
// is; else a dotted build's first three numbers, the rest as build
// metadata ("8.1.0.1" -> "8.1.0+1"); a build with no version numbers (a
// commit) as 0.0.0's build metadata ("e8ed480-dirty" ->
// "0.0.0+e8ed480-dirty").
func ServiceVersionOf(build string) string {
	if semver().MatchString(build) {
		return build
	}
	core, rest := "0.0.0", build
	if m := semverCore().FindStringSubmatch(build); m != nil {
		core, rest = m[1]+"."+m[2]+"."+m[3], m[4]
	}
	var ids []string
	for _, id := range notIdent().Split(rest, -1) {
		if id = strings.Trim(id, "-"); id != "" {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return core
	}
	return core + "+" + strings.Join(ids, ".")
}
