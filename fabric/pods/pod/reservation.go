package pod

import (
	"net"
	"sync"
)

// A Reservation is a listener bound ahead of the pod that serves on it
// (the local fabric binds its pods' ports before it writes the network
// configuration that names them). A nil Reservation holds nothing.
type Reservation struct {
	mu sync.Mutex
	ln net.Listener
}

// Reserve holds ln for the pod that will serve on it.
func Reserve(ln net.Listener) *Reservation { return &Reservation{ln: ln} }

// take returns the reserved listener, once.
func (r *Reservation) take() net.Listener {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	ln := r.ln
	r.ln = nil
	return ln
}

// Listen returns the reserved listener, or else one bound to addr now.
func (r *Reservation) Listen(addr string) (net.Listener, error) {
	if ln := r.take(); ln != nil {
		return ln, nil
	}
	return net.Listen("tcp", addr)
}

// Release closes the reserved listener if no pod took it.
func (r *Reservation) Release() {
	if ln := r.take(); ln != nil {
		ln.Close()
	}
}
