package eventgw

import (
	"context"
	"sync"
)

// DefaultBytesInFlight bounds the bytes of records a gateway holds for
// its tenant that their streams have not acknowledged yet, unless
// Options.MaxBytesInFlight says otherwise.
const DefaultBytesInFlight = 64 << 20

// byteLimit bounds bytes held at once: a taker waits for room (TCP: the
// sender is slowed down) or goes without (UDP: dropped, counted). One
// record larger than the limit alone is let in when nothing else is held,
// so that it cannot wait forever.
type byteLimit struct {
	max int64

	mu      sync.Mutex
	held    int64
	waiting int           // takers waiting for room
	freed   chan struct{} // closed when bytes are given back to a waiting taker
}

func newByteLimit(max int64) *byteLimit {
	return &byteLimit{max: max, freed: make(chan struct{})}
}

// take takes n bytes: waiting for room while block and ctx allow, else
// reporting false at once.
func (l *byteLimit) take(ctx context.Context, n int64, block bool) bool {
	if l == nil {
		return true
	}
	for {
		l.mu.Lock()
		if l.held+n <= l.max || l.held == 0 {
			l.held += n
			l.mu.Unlock()
			return true
		}
		if !block {
			l.mu.Unlock()
			return false
		}
		freed := l.freed
		l.waiting++
		l.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
		}
		l.mu.Lock()
		l.waiting--
		l.mu.Unlock()
		if ctx.Err() != nil {
			return false
		}
	}
}

// give gives back n bytes.
func (l *byteLimit) give(n int64) {
	if l == nil || n == 0 {
		return
	}
	l.mu.Lock()
	l.held -= n
	// Most gives find nobody waiting: the channel is replaced only when
	// it wakes someone, not once a record.
	if l.waiting > 0 {
		close(l.freed)
		l.freed = make(chan struct{})
	}
	l.mu.Unlock()
}

// inUse is the bytes held now.
func (l *byteLimit) inUse() int64 {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.held
}
