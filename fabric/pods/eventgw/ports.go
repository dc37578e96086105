package eventgw

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/fabricops/fabric/fabric/api"
)

// ErrPortReserved is matched (errors.Is) by the error of a port another
// tenant holds.
var ErrPortReserved = errors.New("reserved by another tenant")

// PortRegistry says which tenant holds each port of the host, so that a
// tenant's endpoint keeps its port from add to delete, whether it is
// listening or not: another tenant's endpoint on that port is refused,
// without being told whose it is.
//
// Tenants are NATS accounts and cannot see each other's buckets, so the
// registry lives on the host, shared by every gateway there: with a
// directory, one file per held port ("udp-5514", holding the owner's
// tenant name, mode 0600), made with a hard link that fails when the file
// exists, so two fabricd processes racing for a port agree on one owner;
// without one, a table shared by the gateways of this process (the local
// fabric and tests, whose tenants all run in one process).
type PortRegistry struct {
	dir string

	mu  sync.Mutex
	mem map[string]string // key -> owner, when dir is ""
}

// processPorts is the registry of the gateways of this process that name
// no directory.
var processPorts = &PortRegistry{mem: map[string]string{}}

// portRegistry returns the registry of a gateway: the host's directory
// dir, or the process's table when dir is "".
func portRegistry(dir string) (*PortRegistry, error) {
	if dir == "" {
		return processPorts, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("the host's port reservations: %v", err)
	}
	return &PortRegistry{dir: dir}, nil
}

// portKey names a port of a network ("tcp", "udp").
func portKey(network string, port int) string { return network + "-" + strconv.Itoa(port) }

// reservedError is the error of a port another tenant holds: it names
// the port, never the owner.
func reservedError(network string, port int) error {
	return fmt.Errorf("port %d/%s is %w", port, network, ErrPortReserved)
}

// Reserve gives port of network to owner, unless another owner holds it
// (ErrPortReserved). Reserving a port its owner holds is a no-op.
func (r *PortRegistry) Reserve(owner, network string, port int) error {
	key := portKey(network, port)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.dir == "" {
		if held, ok := r.mem[key]; ok && held != owner {
			return reservedError(network, port)
		}
		r.mem[key] = owner
		return nil
	}
	path := filepath.Join(r.dir, key)
	for attempt := 0; attempt < 3; attempt++ {
		held, err := os.ReadFile(path)
		if err == nil {
			if string(held) == owner {
				return nil
			}
			return reservedError(network, port)
		}
		if !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("the host's port reservations: %v", unwrapPath(err))
		}
		// The owner's name goes into a file of our own first, linked in
		// place after: a reader never sees a half-written reservation.
		tmp, err := os.CreateTemp(r.dir, ".reserving-*")
		if err != nil {
			return fmt.Errorf("the host's port reservations: %v", unwrapPath(err))
		}
		_, werr := tmp.WriteString(owner)
		cerr := tmp.Close()
		if werr == nil && cerr == nil {
			werr = os.Link(tmp.Name(), path)
		}
		_ = os.Remove(tmp.Name())
		if werr == nil {
			return nil
		}
		if !errors.Is(werr, os.ErrExist) {
			return fmt.Errorf("the host's port reservations: %v", unwrapPath(werr))
		}
		// Another process took it meanwhile: read whose it is.
	}
	return reservedError(network, port)
}

// Release gives back a port owner holds (a port another owner holds, or
// none, is left as it is).
func (r *PortRegistry) Release(owner, network string, port int) {
	key := portKey(network, port)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.dir == "" {
		if r.mem[key] == owner {
			delete(r.mem, key)
		}
		return
	}
	path := filepath.Join(r.dir, key)
	if held, err := os.ReadFile(path); err == nil && string(held) == owner {
		_ = os.Remove(path)
	}
}

// Held returns the ports owner holds, as keys ("udp-5514").
func (r *PortRegistry) Held(owner string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	if r.dir == "" {
		for k, o := range r.mem {
			if o == owner {
				out = append(out, k)
			}
		}
		return out
	}
	entries, err := os.ReadDir(r.dir)
	if err != nil {
		return nil
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if held, err := os.ReadFile(filepath.Join(r.dir, e.Name())); err == nil && string(held) == owner {
			out = append(out, e.Name())
		}
	}
	return out
}

// Free reports whether nobody but owner holds port of network.
func (r *PortRegistry) Free(owner, network string, port int) bool {
	key := portKey(network, port)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.dir == "" {
		held, ok := r.mem[key]
		return !ok || held == owner
	}
	held, err := os.ReadFile(filepath.Join(r.dir, key))
	return err != nil || string(held) == owner
}

// parsePortKey is the inverse of portKey.
func parsePortKey(key string) (network string, port int, ok bool) {
	network, p, found := strings.Cut(key, "-")
	if !found {
		return "", 0, false
	}
	port, err := strconv.Atoi(p)
	return network, port, err == nil
}

// unwrapPath drops the path of a *fs.PathError (the host's paths are not
// the tenant's business).
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// networkOf is the network an endpoint type listens on.
func networkOf(typ string) string {
	switch typ {
	case api.EndpointSyslogUDP, api.EndpointSNMPTrap:
		return "udp"
	}
	return "tcp"
}

// reserve reserves an endpoint's port for the gateway's tenant (port 0,
// a free one the kernel picks, is not reserved).
func (g *Gateway) reserve(c Config) error {
	if c.Port == 0 {
		return nil
	}
	return g.ports.Reserve(g.p.Tenant, networkOf(c.Type), c.Port)
}

// releaseUnnamed gives back the ports the tenant holds that none of its
// endpoints names any more (deleted, or moved to another port).
func (g *Gateway) releaseUnnamed(named map[string]bool) {
	for _, key := range g.ports.Held(g.p.Tenant) {
		if named[key] {
			continue
		}
		if network, port, ok := parsePortKey(key); ok {
			g.ports.Release(g.p.Tenant, network, port)
		}
	}
}

// portFree answers an api.PortFreeRequest (event-endpoint add and enable
// ask before they write): whether an endpoint of the gateway's tenant may
// take the port, that is whether no other tenant holds it on this host.
// The reason names the port, never its owner.
func (g *Gateway) portFree(data []byte) any {
	var req api.PortFreeRequest
	if err := json.Unmarshal(data, &req); err != nil {
		return api.Error{Error: fmt.Sprintf("bad port request: %v", err)}
	}
	if req.Port <= 0 {
		return api.PortFreeAnswer{Free: true} // a free one the kernel picks
	}
	network := networkOf(req.Type)
	if g.ports.Free(g.p.Tenant, network, req.Port) {
		return api.PortFreeAnswer{Free: true}
	}
	return api.PortFreeAnswer{Reason: reservedError(network, req.Port).Error()}
}
