package portal

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"sync"
	"time"

	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// session is a logged-in user: its reads go through the NATS connection
// its own credentials opened, so that it reaches its own tenant's
// dashboards and streams and nothing else.
type session struct {
	id   string
	user string
	nc   *nats.Conn
	js   jetstream.JetStream
	data *tenant.Data
	repo *artifact.Repo

	mu       sync.Mutex
	lastUsed time.Time
	live     int // open live connections
}

// touch marks the session used now.
func (s *session) touch(now time.Time) {
	s.mu.Lock()
	s.lastUsed = now
	s.mu.Unlock()
}

// sessions holds the open sessions, fenced per user and in all.
type sessions struct {
	o   Limits
	now func() time.Time

	mu   sync.Mutex
	byID map[string]*session
}

// Errors of the session table.
var (
	errTooManySessions = errors.New("too many open sessions for this user: log out elsewhere, or wait for idle ones to expire")
	errPortalFull      = errors.New("the portal holds as many sessions as it may: try again later")
	errTooManyLive     = errors.New("too many live pages open in this session: close some")
)

func newSessions(o Limits, now func() time.Time) *sessions {
	return &sessions{o: o, now: now, byID: map[string]*session{}}
}

// newID returns a random session id (256 bits).
func newID() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// add opens a session of user over nc, within the limits; on refusal the
// caller closes nc.
func (ss *sessions) add(ctx context.Context, user string, nc *nats.Conn) (*session, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	st, err := store.Open(ctx, nc)
	if err != nil {
		return nil, err
	}
	id, err := newID()
	if err != nil {
		return nil, err
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.expireLocked()
	if len(ss.byID) >= ss.o.MaxSessions {
		return nil, errPortalFull
	}
	n := 0
	for _, s := range ss.byID {
		if s.user == user {
			n++
		}
	}
	if n >= ss.o.MaxSessionsPerUser {
		return nil, errTooManySessions
	}
	s := &session{id: id, user: user, nc: nc, js: js, data: tenant.New(nc), repo: &artifact.Repo{Store: st}, lastUsed: ss.now()}
	ss.byID[id] = s
	return s, nil
}

// get returns the live session of id, marking it used.
func (ss *sessions) get(id string) *session {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.expireLocked()
	s := ss.byID[id]
	if s != nil {
		s.touch(ss.now())
	}
	return s
}

// remove ends the session of id.
func (ss *sessions) remove(id string) {
	ss.mu.Lock()
	s := ss.byID[id]
	delete(ss.byID, id)
	ss.mu.Unlock()
	if s != nil {
		s.nc.Close()
	}
}

// expireLocked ends the sessions idle for longer than IdleTimeout (those
// with live connections open are in use).
func (ss *sessions) expireLocked() {
	now := ss.now()
	for id, s := range ss.byID {
		s.mu.Lock()
		idle := s.live == 0 && now.Sub(s.lastUsed) > ss.o.IdleTimeout
		s.mu.Unlock()
		if idle {
			delete(ss.byID, id)
			s.nc.Close()
		}
	}
}

// expire ends the idle sessions.
func (ss *sessions) expire() {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.expireLocked()
}

// closeAll ends every session.
func (ss *sessions) closeAll() {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for id, s := range ss.byID {
		delete(ss.byID, id)
		s.nc.Close()
	}
}

// count returns the open sessions.
func (ss *sessions) count() int {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return len(ss.byID)
}

// openLive takes one of the session's live connections; done gives it
// back.
func (s *session) openLive(max int) (done func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.live >= max {
		return nil, errTooManyLive
	}
	s.live++
	return func() {
		s.mu.Lock()
		s.live--
		s.lastUsed = time.Now()
		s.mu.Unlock()
	}, nil
}

// limiter rate-limits login attempts per client address: at most Burst
// failures, one more each Every.
type limiter struct {
	every time.Duration
	burst int
	now   func() time.Time

	mu    sync.Mutex
	fails map[string][]time.Time
}

// maxTracked bounds the addresses the limiter remembers: past it, the
// oldest-looking entries are forgotten (their failures are old anyway).
const maxTracked = 10_000

func newLimiter(every time.Duration, burst int, now func() time.Time) *limiter {
	return &limiter{every: every, burst: burst, now: now, fails: map[string][]time.Time{}}
}

// recent returns addr's failures within the window, dropping older ones.
func (l *limiter) recent(addr string) []time.Time {
	cut := l.now().Add(-l.every * time.Duration(l.burst))
	fs := l.fails[addr]
	i := 0
	for i < len(fs) && fs[i].Before(cut) {
		i++
	}
	fs = fs[i:]
	if len(fs) == 0 {
		delete(l.fails, addr)
	} else {
		l.fails[addr] = fs
	}
	return fs
}

// allow reports whether addr may try to log in now.
func (l *limiter) allow(addr string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.recent(addr)) < l.burst
}

// failed records a failed attempt of addr.
func (l *limiter) failed(addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.fails) >= maxTracked {
		for k := range l.fails {
			delete(l.fails, k)
			if len(l.fails) < maxTracked/2 {
				break
			}
		}
	}
	l.fails[addr] = append(l.recent(addr), l.now())
}
