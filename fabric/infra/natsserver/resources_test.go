package natsserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

func tenants(t *testing.T, n int) []bus.Tenant {
	t.Helper()
	out := make([]bus.Tenant, n)
	for i := range out {
		tn, err := bus.NewTenant(fmt.Sprintf("t%d", i+1))
		if err != nil {
			t.Fatal(err)
		}
		out[i] = tn
	}
	return out
}

// TestFitTenants: each tenant's JetStream limits are at most its equal
// share of the server's resources, never above its own; a share below
// the least a tenant needs is refused in one line with the numbers.
func TestFitTenants(t *testing.T) {
	const gib = 1 << 30
	tests := []struct {
		name         string
		n            int
		limits       bus.Limits
		r            Resources
		mem, storage int64
		err          string
	}{
		{"defaults fit", 2, bus.Limits{}, Resources{Memory: 4 * gib, Storage: 100 * gib}, 256 << 20, 10 * gib, ""},
		{"memory shared", 100, bus.Limits{}, Resources{Memory: 17 * gib, Storage: 2000 * gib}, 17 * gib / 100, 10 * gib, ""},
		{"disk shared", 4, bus.Limits{}, Resources{Memory: 4 * gib, Storage: 12 << 20 * 4}, 256 << 20, 12 << 20, ""},
		{"own limits kept", 3, bus.Limits{MaxMemory: 1 << 20, MaxStorage: 2 << 20}, Resources{Memory: gib, Storage: gib}, 1 << 20, 2 << 20, ""},
		{"too little memory", 200, bus.Limits{}, Resources{Memory: gib, Storage: 1000 * gib}, 0, 0, "for each of 200 tenant(s), less than the 8 MB each needs"},
		{"full disk", 1, bus.Limits{}, Resources{Memory: gib, Storage: 96 << 10}, 0, 0, "free some disk space"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := tenants(t, tc.n)
			for i := range in {
				in[i].Limits = tc.limits
			}
			out, err := FitTenants(in, tc.r)
			if tc.err != "" {
				if !errors.Is(err, ErrInsufficientResources) || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("FitTenants: %v; want one line with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var mem, storage int64
			for _, tn := range out {
				if tn.Limits.MaxMemory != tc.mem || tn.Limits.MaxStorage != tc.storage {
					t.Fatalf("%s: memory %d storage %d, want %d and %d", tn.Name, tn.Limits.MaxMemory, tn.Limits.MaxStorage, tc.mem, tc.storage)
				}
				mem, storage = mem+tn.Limits.MaxMemory, storage+tn.Limits.MaxStorage
			}
			if mem > tc.r.Memory || storage > tc.r.Storage {
				t.Fatalf("the tenants' limits add up to %d and %d, more than the server's %d and %d", mem, storage, tc.r.Memory, tc.r.Storage)
			}
		})
	}
}

// TestHostileManyTenants: a server with 100 tenants of the default
// limits (256 MiB of memory each: more than three quarters of most
// hosts' memory) gives every tenant JetStream, the last as the first;
// its log file is its owner's only.
func TestHostileManyTenants(t *testing.T) {
	dir := t.TempDir()
	ts := tenants(t, 100)
	srv, err := StartServer(ServerOptions{Name: "many", Port: -1, StoreDir: filepath.Join(dir, "jetstream"), Tenants: ts, LogFile: filepath.Join(dir, "nats.log")})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	for _, tn := range []bus.Tenant{ts[0], ts[len(ts)-1]} {
		nc, err := nats.Connect(srv.URL(), nats.UserInfo(tn.User, tn.Password))
		if err != nil {
			t.Fatal(err)
		}
		js, _ := jetstream.New(nc)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		info, err := js.AccountInfo(ctx)
		cancel()
		nc.Close()
		if err != nil {
			t.Fatalf("tenant %s of 100: %v", tn.Name, err)
		}
		if info.Limits.MaxMemory <= 0 || info.Limits.MaxMemory > bus.DefaultLimits.MaxMemory {
			t.Errorf("tenant %s: max memory %d", tn.Name, info.Limits.MaxMemory)
		}
	}
	st, err := os.Stat(filepath.Join(dir, "nats.log"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("nats.log: mode %v, want 0600", st.Mode().Perm())
	}
}

// TestHostileFullDiskStart: on a full disk the server is refused before
// it writes anything, in one line that says so (nats-server panics when
// it cannot write its store); once space is freed it starts.
func TestHostileFullDiskStart(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs to fill (needs root): %v: %s", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
	filler := filepath.Join(dir, "filler")
	_ = exec.Command("dd", "if=/dev/zero", "of="+filler, "bs=1M", "count=64").Run() // until the disk is full
	o := ServerOptions{Name: "full", Port: -1, StoreDir: filepath.Join(dir, "fabric", "jetstream"), Tenants: tenants(t, 1)}
	_, err := StartServer(o)
	if err == nil || !strings.Contains(err.Error(), "free some disk space") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("starting on a full disk: %v; want one line saying so", err)
	}
	t.Logf("the refusal: %v", err)
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	srv, err := StartServer(o)
	if err != nil {
		t.Fatalf("starting once space is freed: %v", err)
	}
	srv.Shutdown()
}
