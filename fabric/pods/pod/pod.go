// Package pod is the framework every pod type stands on: a NATS micro
// service with an 8-hex pod id that answers info (SPEC 2.1), health (SPEC
// 2.15), status and restart on its direct subjects, and keeps itself in the
// tenant's pod registry while it lives.
package pod

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/libraries"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nats.go/micro"
)

// RegistryTTL is how long a registration lives without a heartbeat; pods
// refresh theirs three times as often.
const RegistryTTL = 9 * time.Second

// Spec describes a pod to start.
type Spec struct {
	Type string
	// Category is the type's, api.CategoryInfra or api.CategoryApp, as
	// its registration (package runner) says.
	Category string
	// ID is the pod id (8 hex); a new one is drawn when empty.
	ID   string
	Site string
	// Tenant, BuildTag, PlatformVersion and MessengerVersion fill the
	// pod's labels.
	Tenant          string
	BuildTag        string
	PlatformVersion string
	// LicenseExpires is when the tenant's license ends (zero: never).
	LicenseExpires time.Time
	// ObjstoreHost and ConfigChecksum fill objstore_info.
	ObjstoreHost   string
	ConfigChecksum string
	// CapacityFilter decides whether the pod takes work; default
	// api.DefaultCapacityFilter for the host's CPUs.
	CapacityFilter string
	// Dependencies are pod types that must be live for the pod to be
	// healthy (service-dependency:<type>).
	Dependencies []string
	// Restarts counts restarts in place, reported by status.
	Restarts int
	// PackageDir is the pod's package directory (libraries staged by
	// library install, installed when the pod starts); empty: the pod
	// installs no libraries.
	PackageDir string
	// Logger receives the pod's own log lines (nil: none).
	Logger *log.Logger
}

// Logf logs a line of the pod, naming it, and publishes it on the pod's
// log subject (watch logs).
// It is an info line of the pod's logger its message names first
// ("libraries: ..."), else of the pod (logging.go).
func (p *Pod) Logf(format string, args ...any) { p.logf(format, args...) }

// NewID returns a new 8-hex pod id.
func NewID() string {
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

// Pod is a running pod.
type Pod struct {
	Spec
	nc       *nats.Conn
	js       jetstream.JetStream
	svc      micro.Service
	registry jetstream.KeyValue
	objects  jetstream.ObjectStore
	started  time.Time
	hostname string
	initErr  error

	leader     atomic.Bool
	activeJobs atomic.Int64
	totalJobs  atomic.Int64
	hooksMu    sync.Mutex
	onStop     []func()
	checks     []healthCheck

	// installed are the libraries installed when the pod started (less
	// those its worker could not load: KeepInstalled).
	installedMu sync.Mutex
	installed   map[string]libraries.Name

	// onRestart is called (in its own goroutine) when a restart is asked.
	onRestart func()

	// maintenance is whether the pod takes no new jobs; onMaintenance
	// and onUpgrade are its service's and its controller's hooks.
	maintenance   atomic.Bool
	onMaintenance func(on bool)
	onUpgrade     func(api.UpgradeRequest) (api.UpgradeAccepted, error)

	// limits are what the pod enforces (SetLimits), runtimes the bot
	// runtimes it runs (SetRuntimes); limitsMu guards both.
	limitsMu sync.Mutex
	limits   []api.LimitRow
	runtimes map[string]string

	// logs is the pod's logging configuration (logging.go).
	logs logState

	stopOnce sync.Once
	done     chan struct{}
}

// Start starts a pod on nc, which it uses until Stop. onRestart, when not
// nil, is how the pod's controller restarts it on request.
func Start(ctx context.Context, nc *nats.Conn, spec Spec, onRestart func()) (*Pod, error) {
	if spec.ID == "" {
		spec.ID = NewID()
	}
	if spec.CapacityFilter == "" {
		spec.CapacityFilter = api.DefaultCapacityFilter(goruntime.NumCPU())
	}
	host, _ := os.Hostname()
	p := &Pod{Spec: spec, nc: nc, started: time.Now(), hostname: host, done: make(chan struct{}), onRestart: onRestart}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	p.js = js
	if p.registry, err = store.EnsureKV(ctx, js, registryConfig); err != nil {
		return nil, fmt.Errorf("pod %s: registry: %w", spec.ID, err)
	}
	// The object store is checked by health; a failure here is reported
	// as service-initialization-status rather than stopping the pod.
	p.objects, p.initErr = store.EnsureObjectStore(ctx, js, api.ObjectsBucket)

	p.loadLibraries()

	svc, err := micro.AddService(nc, micro.Config{
		Name:        spec.Type,
		Version:     api.ServiceVersionOf(spec.BuildTag),
		Description: fmt.Sprintf("fabric %s pod %s", spec.Type, spec.ID),
		Metadata:    map[string]string{"pod_id": spec.ID, "site_name": spec.Site, "tenant": spec.Tenant},
	})
	if err != nil {
		return nil, fmt.Errorf("pod %s: service: %w", spec.ID, err)
	}
	p.svc = svc
	endpoints := []struct {
		name    string
		handler micro.HandlerFunc
	}{
		{api.EndpointInfo, p.handleInfo},
		{api.EndpointHealth, p.handleHealth},
		{api.EndpointStatus, p.handleStatus},
		{api.EndpointRestart, p.handleRestart},
		{api.EndpointLimits, p.handleLimits},
		{api.EndpointLibraries, p.handleLibraries},
		{api.EndpointLogging, p.handleLogging},
		{api.EndpointObjInfo, p.handleObjInfo},
		{api.EndpointMaintenance, p.handleMaintenance},
		{api.EndpointUpgrade, p.handleUpgrade},
	}
	for _, e := range endpoints {
		if err := svc.AddEndpoint(e.name, e.handler, micro.WithEndpointSubject(api.PodSubject(spec.ID, e.name)), micro.WithEndpointQueueGroupDisabled()); err != nil {
			svc.Stop()
			return nil, err
		}
	}
	if err := svc.AddEndpoint("auto", micro.HandlerFunc(p.handleInfo), micro.WithEndpointSubject(api.AutoSubject(spec.Type)), micro.WithEndpointQueueGroup(spec.Type)); err != nil {
		svc.Stop()
		return nil, err
	}
	if err := p.register(ctx); err != nil {
		svc.Stop()
		return nil, fmt.Errorf("pod %s: register: %w", spec.ID, err)
	}
	go p.heartbeat()
	return p, nil
}

// Conn returns the pod's connection.
func (p *Pod) Conn() *nats.Conn { return p.nc }

// JetStream returns the pod's JetStream context.
func (p *Pod) JetStream() jetstream.JetStream { return p.js }

// SetLeader records whether the pod leads its type.
func (p *Pod) SetLeader(b bool) { p.leader.Store(b) }

// Leader reports whether the pod leads its type.
func (p *Pod) Leader() bool { return p.leader.Load() }

// Done is closed when the pod stops.
func (p *Pod) Done() <-chan struct{} { return p.done }

// Stop deregisters the pod and stops its service; the caller closes the
// connection. Stop is idempotent.
func (p *Pod) Stop() {
	p.stopOnce.Do(func() {
		close(p.done)
		_ = p.svc.Stop()
		p.hooksMu.Lock()
		hooks := p.onStop
		p.hooksMu.Unlock()
		for i := len(hooks) - 1; i >= 0; i-- {
			hooks[i]()
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = p.registry.Delete(ctx, p.ID)
	})
}

// registryConfig is the registry bucket's: in memory, each entry living
// RegistryTTL unless renewed.
var registryConfig = jetstream.KeyValueConfig{
	Bucket: api.PodsBucket, Description: "live pods", TTL: RegistryTTL, Storage: jetstream.MemoryStorage,
}

func (p *Pod) register(ctx context.Context) error {
	data, _ := json.Marshal(api.Registration{PodID: p.ID, PodType: p.Type, Site: p.Site, Hostname: p.hostname})
	_, err := p.registry.Put(ctx, p.ID, data)
	if errors.Is(err, jetstream.ErrNoStreamResponse) || errors.Is(err, jetstream.ErrStreamNotFound) || errors.Is(err, jetstream.ErrBucketNotFound) {
		// The registry is kept in memory: a NATS server that restarted
		// (alone, or the whole cluster) lost it. The first pod to
		// notice makes it again, and every pod registers anew.
		// (A bucket's handle names it: the one held goes on working.)
		if _, kerr := store.EnsureKV(ctx, p.js, registryConfig); kerr != nil {
			return fmt.Errorf("making the registry again: %w", kerr)
		}
		_, err = p.registry.Put(ctx, p.ID, data)
	}
	return err
}

// heartbeat renews the pod's registration every RegistryTTL/3, and at
// once when its connection comes back: a NATS server that restarted lost
// the registry (it is in memory), and until the pods register again the
// controller and the schedulers see no worker.
func (p *Pod) heartbeat() {
	t := time.NewTicker(RegistryTTL / 3)
	defer t.Stop()
	back := p.nc.StatusChanged(nats.CONNECTED)
	defer p.nc.RemoveStatusListener(back)
	beat := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		return p.register(ctx)
	}
	for {
		select {
		case <-p.done:
			return
		case <-t.C:
			_ = beat()
		case <-back:
			// The server's JetStream may still be loading: try again
			// shortly until it takes the registration.
			for i := 0; i < 8 && beat() != nil; i++ {
				select {
				case <-p.done:
					return
				case <-time.After(250 * time.Millisecond):
				}
			}
		}
	}
}

// Info returns the pod's info with live resources.
func (p *Pod) Info() api.PodInfo {
	now := time.Now()
	res := ReadResources()
	res.PodUsageActiveJobs = int(p.activeJobs.Load())
	res.PodUsageTotalJobs = int(p.totalJobs.Load())
	valid, notExpired, expires := "yes", "yes", ""
	if !p.LicenseExpires.IsZero() {
		expires = p.LicenseExpires.UTC().Format("2006-01-02")
		if now.After(p.LicenseExpires) {
			notExpired = "no"
		}
	}
	siteID := ""
	if p.Site != "" {
		siteID = shortHash(p.Tenant + "/" + p.Site)
	}
	return api.PodInfo{
		Now:         api.Timestamp(now),
		StartedAt:   api.Timestamp(p.started),
		PodType:     p.Type,
		PodCategory: p.Category,
		PodID:       p.ID,
		Hostname:    p.hostname,
		ProcID:      os.Getpid(),
		Labels: api.Labels{
			TenantName:            p.Tenant,
			PlatformVersion:       p.PlatformVersion,
			MessengerVersion:      p.nc.ConnectedServerVersion(),
			PodVersion:            p.BuildTag,
			LicenseValid:          valid,
			LicenseNotExpired:     notExpired,
			LicenseExpirationDate: expires,
		},
		BuildTag:       p.BuildTag,
		Requests:       api.Requests{Auto: api.AutoSubject(p.Type), Direct: api.PodSubject(p.ID, "*")},
		Resources:      res,
		PodLeader:      p.leader.Load(),
		ObjstoreInfo:   api.ObjstoreInfo{Host: p.ObjstoreHost, ConfigChecksum: p.ConfigChecksum},
		Group:          p.Site,
		GroupID:        siteID,
		SiteName:       p.Site,
		SiteID:         siteID,
		PublicAccess:   false,
		CapacityFilter: p.CapacityFilter,
		LocalTime:      float64(now.UnixNano()) / 1e9,
		Runtimes:       p.Runtimes(),
		Maintenance:    p.InMaintenance(),
	}
}

// Status returns the pod's controller status.
func (p *Pod) Status() api.ControllerStatus {
	return api.ControllerStatus{PodID: p.ID, PodType: p.Type, Hostname: p.hostname, ProcID: os.Getpid(),
		SiteName: p.Site, State: "running", Restarts: p.Restarts, StartedAt: api.Timestamp(p.started)}
}

func (p *Pod) handleInfo(r micro.Request)   { respondJSON(r, p.Info()) }
func (p *Pod) handleStatus(r micro.Request) { respondJSON(r, p.Status()) }
func (p *Pod) handleHealth(r micro.Request) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	respondJSON(r, p.Health(ctx))
}

func (p *Pod) handleRestart(r micro.Request) {
	if p.onRestart == nil {
		respondJSON(r, api.Error{Error: "pod " + p.ID + " has no controller to restart it"})
		return
	}
	respondJSON(r, p.Status())
	go p.onRestart()
}

func respondJSON(r micro.Request, v any) {
	_ = r.RespondJSON(v)
}

// Reply answers a request made on a plain subscription with v as JSON, or
// with an api.Error when v does not marshal: the pods' endpoints outside
// the micro service (api-server, worker) answer through it.
func Reply(m *nats.Msg, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		data, _ = json.Marshal(api.Error{Error: err.Error()})
	}
	_ = m.Respond(data)
}

func shortHash(s string) string {
	var h uint32 = 2166136261
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * 16777619
	}
	return fmt.Sprintf("%08x", h)
}

// healthCheck is a health parameter a pod's service adds.
type healthCheck struct {
	param string
	check func(ctx context.Context) (string, error)
}

// AddHealthCheck adds a health parameter (such as DB-connectivity) that
// health reports after the common ones: check returns the message of an
// ok row, or the error of a failed one.
func (p *Pod) AddHealthCheck(param string, check func(ctx context.Context) (string, error)) {
	p.hooksMu.Lock()
	defer p.hooksMu.Unlock()
	p.checks = append(p.checks, healthCheck{param, check})
}

// OnStop adds fn to what Stop runs, after the pod stops answering and
// before it leaves the registry and its connection is drained: the place
// to finish work cleanly. Hooks run in the reverse order of their adding.
func (p *Pod) OnStop(fn func()) {
	p.hooksMu.Lock()
	defer p.hooksMu.Unlock()
	p.onStop = append(p.onStop, fn)
}

// JobStarted counts a job the pod started (pod_usage_active_jobs and
// pod_usage_total_jobs of its resources).
func (p *Pod) JobStarted() {
	p.activeJobs.Add(1)
	p.totalJobs.Add(1)
}

// JobEnded counts a job of the pod that ended.
func (p *Pod) JobEnded() { p.activeJobs.Add(-1) }
