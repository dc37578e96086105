package natsserver

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"syscall"

	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/lib/budget"
	"github.com/nats-io/nats-server/v2/server/sysmem"
)

// Resources are what a server's JetStream may hold in all: bytes in
// memory (its max memory store) and on disk (its max file store). A
// single server refuses an account whose limits, added to the others',
// exceed them ("insufficient memory resources available"), so the
// tenants' limits are fitted to them (FitTenants).
type Resources struct {
	Memory  int64
	Storage int64
}

// Least share of the server's resources a tenant may get: below it the
// fabric refuses to start rather than give tenants too little to run.
const (
	MinTenantMemory  = 8 << 20
	MinTenantStorage = 8 << 20
)

// HostResources returns what the JetStream of a store in storeDir may use
// on this host, as nats-server reckons it by default: three quarters of
// the memory (of GOMEMLIMIT when lower), and three quarters of the disk
// space that is free plus what the fabric's data already takes (the
// store's parent directory, where the fabric keeps its data), so that
// the figure stays the same across restarts.
func HostResources(storeDir string) (Resources, error) {
	mem := sysmem.Memory()
	if gml := debug.SetMemoryLimit(-1); gml != math.MaxInt64 && (mem <= 0 || gml < mem) {
		mem = gml
	}
	if mem <= 0 {
		mem = 1 << 30
	}
	data := filepath.Dir(storeDir)
	if err := os.MkdirAll(data, 0o700); err != nil {
		return Resources{}, err
	}
	free, err := FreeSpace(data)
	if err != nil {
		return Resources{}, err
	}
	return Resources{Memory: mem / 4 * 3, Storage: (free + DiskUsage(data)) / 4 * 3}, nil
}

// FreeSpace returns the bytes an unprivileged writer may still write on
// the file system of dir.
func FreeSpace(dir string) (int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, fmt.Errorf("free space of %s: %v", dir, err)
	}
	return int64(st.Bavail) * int64(st.Bsize), nil
}

// DiskUsage returns the bytes the files under dir take on disk (the
// blocks allocated, as du counts them); unreadable entries count 0.
func DiskUsage(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if info, err := d.Info(); err == nil {
			if st, ok := info.Sys().(*syscall.Stat_t); ok {
				n += st.Blocks * 512
			} else {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// ErrInsufficientResources is wrapped by FitTenants' refusal.
var ErrInsufficientResources = errors.New("insufficient resources")

// FitTenants returns the tenants with their JetStream limits (zero
// fields: bus.DefaultLimits) lowered so that together they fit r: each
// tenant's memory and storage are at most its equal share of r. When a
// share falls below MinTenantMemory or MinTenantStorage it refuses with
// one line naming the resource and the numbers.
func FitTenants(tenants []bus.Tenant, r Resources) ([]bus.Tenant, error) {
	n := int64(len(tenants))
	if n == 0 {
		return tenants, nil
	}
	memShare, storeShare := r.Memory/n, r.Storage/n
	if memShare < MinTenantMemory {
		return nil, fmt.Errorf("%w: JetStream may use %s of memory (three quarters of the host's), %s for each of %d tenant(s), less than the %s each needs; start fewer tenants or give the host more memory",
			ErrInsufficientResources, budget.Bytes(r.Memory), budget.Bytes(memShare), n, budget.Bytes(MinTenantMemory))
	}
	if storeShare < MinTenantStorage {
		return nil, fmt.Errorf("%w: the disk is too full: JetStream may use %s (three quarters of the free space and the fabric's data), %s for each of %d tenant(s), less than the %s each needs; free some disk space or start fewer tenants",
			ErrInsufficientResources, budget.Bytes(r.Storage), budget.Bytes(storeShare), n, budget.Bytes(MinTenantStorage))
	}
	out := make([]bus.Tenant, len(tenants))
	for i, t := range tenants {
		t.Limits = t.Limits.OrDefault()
		t.Limits.MaxMemory = min(t.Limits.MaxMemory, memShare)
		t.Limits.MaxStorage = min(t.Limits.MaxStorage, storeShare)
		out[i] = t
	}
	return out, nil
}
