package portal

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/nats-io/nats.go"
)

//go:embed static
var static embed.FS

// Limits fence what a user of the portal can make grow.
type Limits struct {
	// MaxSessions bounds the sessions open at once; MaxSessionsPerUser
	// those of one user (each holds a NATS connection of its own).
	MaxSessions        int
	MaxSessionsPerUser int
	// MaxLivePerSession bounds the live pages (connections) a session
	// has open at once; MaxLive those of the whole portal;
	// MaxWidgetsPerPage the live widgets of one page.
	MaxLivePerSession int
	MaxLive           int
	MaxWidgetsPerPage int
	// MaxBufferedRows bounds the rows a live widget holds of its
	// window; MaxPoints the points a view sends (after downsampling);
	// MaxDatasetRows the rows read of a dataset; MaxRecordBytes the size
	// of a record a widget reads (larger ones are skipped).
	MaxBufferedRows int
	MaxPoints       int
	MaxDatasetRows  int
	MaxRecordBytes  int
	// IdleTimeout ends a session unused for that long.
	IdleTimeout time.Duration
	// LoginFailures failed logins from an address within LoginWindow
	// lock it out until the oldest of them leaves the window.
	LoginFailures int
	LoginWindow   time.Duration
	// MaxBodyBytes bounds a request's body (the login form).
	MaxBodyBytes int64
}

// DefaultLimits are the portal's limits unless its options set them.
var DefaultLimits = Limits{MaxSessions: 256, MaxSessionsPerUser: 16, MaxLivePerSession: 8, MaxLive: 256, MaxWidgetsPerPage: 64,
	MaxBufferedRows: 20_000, MaxPoints: 5_000, MaxDatasetRows: 20_000, MaxRecordBytes: 64 << 10,
	IdleTimeout: 30 * time.Minute, LoginFailures: 10, LoginWindow: time.Minute, MaxBodyBytes: 16 << 10}

// orDefault fills l's zero fields from DefaultLimits.
func (l Limits) orDefault() Limits {
	d := DefaultLimits
	fill(&l.MaxSessions, d.MaxSessions)
	fill(&l.MaxSessionsPerUser, d.MaxSessionsPerUser)
	fill(&l.MaxLivePerSession, d.MaxLivePerSession)
	fill(&l.MaxLive, d.MaxLive)
	fill(&l.MaxWidgetsPerPage, d.MaxWidgetsPerPage)
	fill(&l.MaxBufferedRows, d.MaxBufferedRows)
	fill(&l.MaxPoints, d.MaxPoints)
	fill(&l.MaxDatasetRows, d.MaxDatasetRows)
	fill(&l.MaxRecordBytes, d.MaxRecordBytes)
	fill(&l.LoginFailures, d.LoginFailures)
	fill(&l.IdleTimeout, d.IdleTimeout)
	fill(&l.LoginWindow, d.LoginWindow)
	fill(&l.MaxBodyBytes, d.MaxBodyBytes)
	return l
}

// fill sets *v to def when it is not above zero (unset).
func fill[T ~int | ~int64](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// Options configure a Server.
type Options struct {
	// Config locates the fabric's servers: a login connects to them
	// with the credentials it was given (the user and password of the
	// configuration are not used).
	Config *bus.Config
	// Limits fence the users (zero fields: DefaultLimits).
	Limits Limits
	// Secure marks the session cookie Secure (the portal serves HTTPS).
	Secure bool
	// Batch is how often a live widget sends its view at most (0:
	// 250ms); KeepAlive how often an idle one writes a comment (0: 15s);
	// ReadTimeout bounds reading a dataset (0: 30s).
	Batch, KeepAlive, ReadTimeout time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Logf receives the portal's log lines (nil: none); it never gets a
	// password.
	Logf func(format string, args ...any)
}

// Server is the portal: it logs users in with their tenant's
// credentials and serves their dashboards, groups and apps.
type Server struct {
	o        Options
	sessions *sessions
	logins   *limiter
	live     *counter
	mux      *http.ServeMux
}

// counter is a bounded count of things open at once.
type counter struct {
	mu       sync.Mutex
	n, limit int
}

// TryAcquire takes one unless limit are taken.
func (c *counter) TryAcquire() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n >= c.limit {
		return false
	}
	c.n++
	return true
}

// Release gives one back.
func (c *counter) Release() {
	c.mu.Lock()
	c.n--
	c.mu.Unlock()
}

// cookieName is the session cookie's name.
const cookieName = "fabric_portal"

// New returns a portal server.
func New(o Options) *Server {
	o.Limits = o.Limits.orDefault()
	if o.Batch <= 0 {
		o.Batch = 250 * time.Millisecond
	}
	if o.KeepAlive <= 0 {
		o.KeepAlive = 15 * time.Second
	}
	if o.ReadTimeout <= 0 {
		o.ReadTimeout = 30 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	s := &Server{o: o, sessions: newSessions(o.Limits, o.Now),
		logins: newLimiter(o.Limits.LoginWindow/time.Duration(o.Limits.LoginFailures), o.Limits.LoginFailures, o.Now),
		live:   &counter{limit: o.Limits.MaxLive}}
	sub, _ := fs.Sub(static, "static")
	mux := http.NewServeMux()
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(sub)))
	mux.HandleFunc("GET /login", s.handleLoginPage)
	mux.HandleFunc("POST /login", s.handleLogin)
	mux.HandleFunc("POST /logout", s.handleLogout)
	mux.HandleFunc("GET /{$}", s.authed(s.handleIndex))
	mux.HandleFunc("GET /d/{name}", s.authed(s.handleDashboard))
	mux.HandleFunc("GET /api/dashboards", s.authed(s.handleList))
	mux.HandleFunc("GET /live/{name}", s.authed(s.handleLive))
	mux.HandleFunc("GET /reports/{name}", s.authed(s.handleReport))
	mux.HandleFunc("GET /maps/{id}", s.authed(s.handleMap))
	s.mux = mux
	return s
}

func (s *Server) now() time.Time { return s.o.Now() }

// Handler returns the portal's HTTP handler.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; form-action 'self'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		r.Body = http.MaxBytesReader(w, r.Body, s.o.Limits.MaxBodyBytes)
		s.mux.ServeHTTP(w, r)
	})
}

// Close ends every session.
func (s *Server) Close() { s.sessions.closeAll() }

// Sessions returns how many sessions are open.
func (s *Server) Sessions() int { return s.sessions.count() }

// ExpireIdle ends the sessions idle for longer than the limit.
func (s *Server) ExpireIdle() { s.sessions.expire() }

// authed serves h to a logged-in user; others go to the login page (a
// page) or get 401 (the API and live widgets).
func (s *Server) authed(h func(http.ResponseWriter, *http.Request, *session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var ses *session
		if c, err := r.Cookie(cookieName); err == nil {
			ses = s.sessions.get(c.Value)
		}
		if ses == nil {
			if strings.HasPrefix(r.URL.Path, "/api/") || strings.HasPrefix(r.URL.Path, "/live/") {
				http.Error(w, "log in first", http.StatusUnauthorized)
				return
			}
			http.Redirect(w, r, "/login?next="+urlEscape(r.URL.RequestURI()), http.StatusSeeOther)
			return
		}
		h(w, r, ses)
	}
}

// clientAddr is the address login attempts are counted by.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// handleLogin checks the credentials by connecting to the fabric with
// them: the session's reads then go through that connection.
func (s *Server) handleLogin(w http.ResponseWriter, r *http.Request) {
	addr := clientAddr(r)
	if !s.logins.allow(addr) {
		s.loginPage(w, http.StatusTooManyRequests, "too many failed logins: wait a minute", r.FormValue("next"))
		return
	}
	if err := r.ParseForm(); err != nil {
		s.loginPage(w, http.StatusBadRequest, "the login form is too large or malformed", "")
		return
	}
	user, password, next := r.PostFormValue("user"), r.PostFormValue("password"), safeNext(r.PostFormValue("next"))
	if user == "" || password == "" {
		s.loginPage(w, http.StatusBadRequest, "give a user and a password", next)
		return
	}
	cfg := *s.o.Config
	cfg.NATS.User, cfg.NATS.Password, cfg.NATS.CredsFile, cfg.NATS.NKeySeed = user, password, "", ""
	nc, err := bus.Connect(&cfg, "portal session "+user, nats.MaxReconnects(-1))
	if err != nil {
		s.logins.failed(addr)
		s.o.Logf("portal: login of %q from %s refused", user, addr)
		status, msg := http.StatusUnauthorized, "wrong user or password"
		if !strings.Contains(err.Error(), "refused the credentials") {
			status, msg = http.StatusBadGateway, "the fabric cannot be reached: try again later"
		}
		s.loginPage(w, status, msg, next)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), bus.DialTimeout)
	defer cancel()
	ses, err := s.sessions.add(ctx, user, nc)
	if err != nil {
		nc.Close()
		s.loginPage(w, http.StatusTooManyRequests, err.Error(), next)
		return
	}
	s.o.Logf("portal: %q logged in from %s", user, addr)
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: ses.id, Path: "/", HttpOnly: true, Secure: s.o.Secure,
		SameSite: http.SameSiteStrictMode, MaxAge: int(s.o.Limits.IdleTimeout.Seconds()) * 4})
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// safeNext keeps a redirect after login on the portal.
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		return "/"
	}
	return next
}

func (s *Server) handleLogout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(cookieName); err == nil {
		s.sessions.remove(c.Value)
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: "/", HttpOnly: true, Secure: s.o.Secure,
		SameSite: http.SameSiteStrictMode, MaxAge: -1})
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

// Entry is a dashboard of the list.
type Entry struct {
	Name        string `json:"name"`
	Type        string `json:"dashboard_type"`
	Label       string `json:"label"`
	Description string `json:"description"`
	Enabled     bool   `json:"enabled"`
	SavedTime   string `json:"saved_time"`
	// App names the app a page belongs to ("" when none).
	App string `json:"app,omitempty"`
}

// Group is a dashboard group of the list (SPEC 2.5).
type Group struct {
	Name          string `json:"name"`
	Label         string `json:"label"`
	Description   string `json:"description"`
	Users         string `json:"users"`
	Enabled       bool   `json:"enabled"`
	SavedTime     string `json:"saved_time"`
	DashboardList []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"dashboardList"`
}

// listing reads a session's dashboards and groups.
func (s *Server) listing(ctx context.Context, ses *session) ([]Entry, []Group, error) {
	recs, err := ses.repo.List(ctx, artifact.Dashboard)
	if err != nil {
		return nil, nil, err
	}
	var ds []Entry
	for _, rec := range recs {
		e := Entry{Type: "dashboard", Enabled: true}
		if err := json.Unmarshal(rec.Doc.JSON(), &e); err != nil {
			continue
		}
		if e.Type == "" {
			e.Type = "dashboard"
		}
		ds = append(ds, e)
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i].Name < ds[j].Name })
	grecs, err := ses.repo.List(ctx, artifact.DashGroup)
	if err != nil {
		return nil, nil, err
	}
	var gs []Group
	for _, rec := range grecs {
		g := Group{Enabled: true}
		if json.Unmarshal(rec.Doc.JSON(), &g) == nil {
			gs = append(gs, g)
		}
	}
	sort.Slice(gs, func(i, j int) bool { return gs[i].Name < gs[j].Name })
	return ds, gs, nil
}

func (s *Server) handleList(w http.ResponseWriter, r *http.Request, ses *session) {
	ds, gs, err := s.listing(r.Context(), ses)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"dashboards": nonNilList(ds), "groups": nonNilList(gs)})
}

func nonNilList[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}

// errStatus maps a repository error to an HTTP status.
func errStatus(err error) int {
	if errors.Is(err, artifact.ErrNotFound) {
		return http.StatusNotFound
	}
	return http.StatusBadGateway
}
