package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/lib/yamldoc"
	"github.com/fabricops/fabric/fabric/pods/eventgw"
	"github.com/fabricops/fabric/fabric/pods/graphdb"
	"github.com/fabricops/fabric/fabric/pods/portal"
	"github.com/fabricops/fabric/fabric/pods/runner"
	"github.com/fabricops/fabric/fabric/pods/worker"
)

// Version is set at build time with -ldflags "-X main.Version=...".
var Version = "0.1.0-dev"

// Settings is what fabricd runs: from flags, or from a YAML file with the
// same keys.
type Settings struct {
	NetworkConfig string   `yaml:"network_config"`
	NATS          string   `yaml:"nats"`
	Tenant        string   `yaml:"tenant"`
	User          string   `yaml:"user"`
	Password      string   `yaml:"password"`
	CredsFile     string   `yaml:"creds_file"`
	Pods          []string `yaml:"pods"`
	// PodIDs are the pods' ids in the order of Pods (an upgrade starts
	// the new build with its pods' ids; empty: new ones).
	PodIDs        []string `yaml:"pod_ids"`
	Site          string   `yaml:"site"`
	LicenseExpiry string   `yaml:"license_expires"`
	DataDir       string   `yaml:"data_dir"`
	GraphDBDir    string   `yaml:"graphdb_dir"`
	CertDir       string   `yaml:"cert_dir"`
	PortsDir      string   `yaml:"ports_dir"`
	PackagesDir   string   `yaml:"packages_dir"`
	UpgradesDir   string   `yaml:"upgrades_dir"`
	GraphDBListen string   `yaml:"graphdb_listen"`
	// PortalListen, PortalCert and PortalKey place a portal pod (its
	// certificate and key: HTTPS).
	PortalListen string `yaml:"portal_listen"`
	PortalCert   string `yaml:"portal_cert"`
	PortalKey    string `yaml:"portal_key"`
	// ControllerPeriod and LeaseTTL are durations ("5s"); CapacityFilter
	// is the pods' CFXQL capacity filter.
	ControllerPeriod string `yaml:"controller_period"`
	LeaseTTL         string `yaml:"lease_ttl"`
	CapacityFilter   string `yaml:"capacity_filter"`
	// Limits are the tenant's job and query limits (YAML only).
	Limits LimitSettings `yaml:"limits"`
}

const usage = `usage: fabricd [flags]
       fabricd local [--home DIR] [--tenants a,b] [--workers N]
       fabricd server-config --tenants a,b --credentials FILE [--cluster NAME --routes ...]

Runs fabric pods against an existing NATS server or cluster; "fabricd
local" runs the local fabric (what 'client fabric up' starts).

  fabricd --network-config FILE --pods api-server,scheduler,worker --site NAME
  fabricd --nats URL --tenant NAME --user NAME --pods worker,worker --site NAME
  fabricd --config fabricd.yaml

The password is best given in FABRIC_PASSWORD (a flag shows in ps).
The YAML file takes the same keys: network_config, nats, tenant, user,
password, creds_file, pods (a list), site, license_expires (YYYY-MM-DD),
data_dir, graphdb_dir, graphdb_listen, portal_listen, portal_cert,
portal_key, cert_dir, ports_dir, upgrades_dir,
pod_ids (a list), controller_period, lease_ttl, capacity_filter, and limits (the tenant's, YAML only; zero
or missing: the defaults 'client limits' lists):

  limits:
    job:     {max_rows: 10000000, max_memory_mb: 2048, max_seconds: 3600}
    job_max: {max_rows: 200000000, max_memory_mb: 8192, max_seconds: 86400}
    worker_memory_mb: 4096   # all of a worker's jobs together
    query:   {memory_mb: 128, max_runtime_seconds: 120, result_mb: 64,
              concurrent: 2, queued: 6, open_cursors_mb: 128, query_kb: 256, nesting: 500}

A graphdb pod serves ArangoDB's HTTP API from a store in --graphdb-dir on
--graphdb-listen (default :8529). Its credentials are the graphdb user and
password of the network configuration (FABRIC_GRAPHDB_USER and
FABRIC_GRAPHDB_PASSWORD with --nats); clients reach it through the graphdb
url of theirs.

A portal pod serves the tenant's dashboards to a browser on
--portal-listen (default 127.0.0.1:8480), over HTTPS with --portal-cert
and --portal-key; users log in with the tenant's NATS user and password.
Set the network configuration's portal url for 'client dashboard open'.

A rolling upgrade ('client fabric upgrade --to BUILD') asks each fabricd
in turn to run the build of that name in its --upgrades-dir in its place:
its pods go into maintenance, their jobs finish, and the same pods (same
ids, the same pid) come back on the new build. Put the build (make dist)
in every host's upgrades directory first.

An event-gateway pod runs the tenant's ingestion endpoints (client
event-endpoint add) of its site, or of every site; the webhook
certificates it generates are kept in --cert-dir. An endpoint's port is
its tenant's from add to delete: where several fabricd run on one host
(a tenant each), give every one the same --ports-dir, so that no tenant's
endpoint can take a port another tenant holds.

Flags:
`

// parseArgs turns flags (and a --config file) into settings.
func parseArgs(args []string, stderr io.Writer) (*Settings, error) {
	fs := flag.NewFlagSet("fabricd", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	var s Settings
	var pods, podIDs, config string
	fs.StringVar(&config, "config", "", "YAML file of settings")
	fs.StringVar(&podIDs, "pod-ids", "", "comma-separated ids of the pods, in the order of --pods (an upgrade passes them to the new build; default: new ones)")
	fs.StringVar(&pods, "pods", "", "comma-separated pod types to run, a type once per pod ("+strings.Join(runner.Names(), ", ")+")")
	for _, f := range s.flags() {
		fs.StringVar(f.value, f.name, "", f.usage)
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if config != "" {
		data, err := os.ReadFile(config)
		if err != nil {
			return nil, err
		}
		file, err := ParseSettings(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", config, err)
		}
		// Flags given beside the file win over it.
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		for _, f := range file.flags() {
			if set[f.name] {
				*f.value = fs.Lookup(f.name).Value.String()
			}
		}
		s = *file
	}
	if pods != "" {
		s.Pods = strings.Split(pods, ",")
	}
	if podIDs != "" {
		s.PodIDs = strings.Split(podIDs, ",")
	}
	return &s, nil
}

// settingFlag is a flag that sets a string of the settings.
type settingFlag struct {
	name  string
	value *string
	usage string
}

// flags are the flags that set a string of s, for parsing them and for
// letting them win over a settings file.
func (s *Settings) flags() []settingFlag {
	return []settingFlag{
		{"network-config", &s.NetworkConfig, "network configuration file (JSON)"},
		{"nats", &s.NATS, "NATS URL(s), comma-separated"},
		{"tenant", &s.Tenant, "tenant (NATS account) name, with --nats"},
		{"user", &s.User, "NATS user, with --nats"},
		{"password", &s.Password, "NATS password, with --nats (prefer FABRIC_PASSWORD)"},
		{"creds", &s.CredsFile, "NATS .creds file, with --nats"},
		{"site", &s.Site, "site of the workers and agents"},
		{"license-expires", &s.LicenseExpiry, "license expiry date (YYYY-MM-DD)"},
		{"data-dir", &s.DataDir, "the tenant's directory of files that pipelines' @files:loadfile reads (none when empty)"},
		{"graphdb-dir", &s.GraphDBDir, "where a graphdb pod keeps its store (required with one)"},
		{"graphdb-listen", &s.GraphDBListen, "the address a graphdb pod listens on (default :8529)"},
		{"portal-listen", &s.PortalListen, "the address a portal pod listens on (default 127.0.0.1:8480)"},
		{"portal-cert", &s.PortalCert, "the portal's TLS certificate (PEM; with --portal-key it serves HTTPS)"},
		{"portal-key", &s.PortalKey, "the portal's TLS key (PEM)"},
		{"cert-dir", &s.CertDir, "where event gateways keep the webhook certificates they generate (none: generated at each start)"},
		{"packages-dir", &s.PackagesDir, "where the pods keep their package directories (libraries), DIR/<pod id> (default: DATA_DIR/packages; none when both are empty)"},
		{"upgrades-dir", &s.UpgradesDir, "the host's builds (directories as make dist writes them) that 'client fabric upgrade' may name: this process runs one of them in its place (none: it takes no upgrade)"},
		{"ports-dir", &s.PortsDir, "the host's register of event gateway ports, the same directory for every fabricd of the host (none: this process's gateways see only their own reservations)"},
		{"controller-period", &s.ControllerPeriod, "how often the leading scheduler's deployment controller looks (default 5s)"},
		{"lease-ttl", &s.LeaseTTL, "how long the scheduler lease outlives its last renewal: a dead leader's successor takes over within it (default 6s)"},
		{"capacity-filter", &s.CapacityFilter, "the pods' capacity filter, a CFXQL condition on their resources (default: the host's)"},
	}
}

// ParseSettings reads settings from YAML, refusing unknown keys.
func ParseSettings(data []byte) (*Settings, error) {
	var s Settings
	if err := yamldoc.Unmarshal(data, &s, yamldoc.Limits{}, true); err != nil {
		return nil, fmt.Errorf("invalid settings: %v", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if err := s.Limits.check(); err != nil {
		return nil, fmt.Errorf("invalid settings: %v", err)
	}
	return &s, nil
}

// options turns settings into the runner's options.
func (s *Settings) options() (runner.Options, error) {
	var o runner.Options
	var cfg *bus.Config
	switch {
	case s.NetworkConfig != "" && s.NATS != "":
		return o, errors.New("give --network-config or --nats, not both")
	case s.NetworkConfig != "":
		c, err := bus.LoadConfig(s.NetworkConfig)
		if err != nil {
			return o, err
		}
		cfg = c
	case s.NATS != "":
		if s.Tenant == "" {
			return o, errors.New("--nats needs --tenant")
		}
		password := s.Password
		if p := os.Getenv("FABRIC_PASSWORD"); p != "" && password == "" {
			password = p
		}
		cfg = &bus.Config{Tenant: s.Tenant, NATS: bus.NATSConfig{URLs: strings.Split(s.NATS, ","), User: s.User, Password: password, CredsFile: s.CredsFile}}
		if err := cfg.Validate(); err != nil {
			return o, err
		}
	default:
		return o, errors.New("give --network-config FILE or --nats URL (or --config FILE)")
	}
	pods, err := runner.ParsePods(strings.Join(s.Pods, ","))
	if err != nil {
		return o, fmt.Errorf("--pods: %v", err)
	}
	o = runner.Options{Config: cfg, Pods: pods, IDs: s.PodIDs, UpgradesDir: s.UpgradesDir, Site: s.Site, BuildTag: Version, PlatformVersion: Version, PackagesDir: s.PackagesDir,
		Worker:       worker.Options{DataDir: s.DataDir, Limits: s.Limits.Job, MaxLimits: s.Limits.JobMax, MemoryMB: s.Limits.WorkerMemoryMB},
		GraphDB:      graphdb.PodOptions{Dir: s.GraphDBDir, Listen: s.GraphDBListen, Limits: s.Limits.Query.aql()},
		EventGateway: eventgw.Options{CertDir: s.CertDir, DataDir: s.DataDir, PortsDir: s.PortsDir},
		Portal:       portal.PodOptions{Listen: s.PortalListen, CertFile: s.PortalCert, KeyFile: s.PortalKey}}
	if slices.Contains(pods, api.GraphDB) {
		if s.NATS != "" && cfg.GraphDB.User == "" {
			cfg.GraphDB.User, cfg.GraphDB.Password = os.Getenv("FABRIC_GRAPHDB_USER"), os.Getenv("FABRIC_GRAPHDB_PASSWORD")
		}
		switch {
		case s.GraphDBDir == "":
			return o, errors.New("a graphdb pod needs --graphdb-dir")
		case cfg.GraphDB.User == "" || cfg.GraphDB.Password == "":
			return o, errors.New("a graphdb pod needs the graphdb user and password of the network configuration (or FABRIC_GRAPHDB_USER and FABRIC_GRAPHDB_PASSWORD)")
		case countOf(pods, api.GraphDB) > 1:
			return o, errors.New("--pods: one graphdb pod per fabricd (each needs a store and a port of its own)")
		}
		if o.GraphDB.Listen == "" {
			o.GraphDB.Listen = ":8529"
		}
	}
	for _, d := range []struct {
		flag, value string
		into        *time.Duration
	}{{"controller-period", s.ControllerPeriod, &o.ControllerPeriod}, {"lease-ttl", s.LeaseTTL, &o.LeaseTTL}} {
		if d.value == "" {
			continue
		}
		v, err := time.ParseDuration(d.value)
		if err != nil || v <= 0 {
			return o, fmt.Errorf("--%s: want a duration such as 5s, got %q", d.flag, d.value)
		}
		*d.into = v
	}
	o.CapacityFilter = s.CapacityFilter
	if s.LicenseExpiry != "" {
		t, err := time.Parse("2006-01-02", s.LicenseExpiry)
		if err != nil {
			return o, fmt.Errorf("--license-expires: want YYYY-MM-DD, got %q", s.LicenseExpiry)
		}
		o.LicenseExpires = t
	}
	return o, nil
}

// run runs fabricd until a signal (or stop, in tests) and returns the exit
// code: 0 after a graceful stop, 1 on failure, 2 on bad usage.
func run(args []string, stderr io.Writer, stop stopper) int {
	if len(args) > 0 && args[0] == "local" {
		return runLocal(args[1:], stderr)
	}
	if len(args) > 0 && args[0] == "server-config" {
		return runServerConfig(args[1:], os.Stdout, stderr)
	}
	s, err := parseArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "fabricd: %v\n", err)
		return 2
	}
	opts, err := s.options()
	if err != nil {
		fmt.Fprintf(stderr, "fabricd: %v\n", err)
		return 2
	}
	logger := log.New(stderr, "fabricd: ", log.LstdFlags)
	opts.Logger = logger
	// An upgrade request runs another build in this process's place
	// (syscall.Exec: the same pid, arguments and environment, the pods'
	// ids added); when that fails, the pods are stopped already: exit 1,
	// for the supervisor to start this build again.
	upgradeFailed := make(chan error, 1)
	opts.Upgrade = func(dir string, ids []string) error {
		err := execBuild(dir, args, ids)
		upgradeFailed <- err
		return err
	}
	r, err := runner.Start(opts)
	if err != nil {
		fmt.Fprintf(stderr, "fabricd: %v\n", err)
		return 1
	}
	logger.Printf("running %d pods of tenant %s at %s", len(opts.Pods), opts.Config.Tenant, strings.Join(opts.Config.NATS.URLs, ","))
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sigs)
	select {
	case sig := <-sigs:
		logger.Printf("%s: stopping", sig)
	case <-stop:
	case err := <-upgradeFailed:
		logger.Printf("the upgrade failed: %v; exiting", err)
		return 1
	}
	r.Stop()
	logger.Printf("stopped")
	return 0
}

// countOf counts the times s is in list.
func countOf(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}
