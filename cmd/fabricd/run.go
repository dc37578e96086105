package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/fabricops/fabric/fabric/bus"
	"github.com/fabricops/fabric/fabric/runner"
	"gopkg.in/yaml.v3"
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
	Site          string   `yaml:"site"`
	LicenseExpiry string   `yaml:"license_expires"`
}

const usage = `usage: fabricd [flags]

Runs fabric pods against an existing NATS server or cluster.

  fabricd --network-config FILE --pods api-server,scheduler,worker --site NAME
  fabricd --nats URL --tenant NAME --user NAME --pods worker,worker --site NAME
  fabricd --config fabricd.yaml

The password is best given in FABRIC_PASSWORD (a flag shows in ps).
The YAML file takes the same keys: network_config, nats, tenant, user,
password, creds_file, pods (a list), site, license_expires (YYYY-MM-DD).

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
	var pods, config string
	fs.StringVar(&config, "config", "", "YAML file of settings")
	fs.StringVar(&s.NetworkConfig, "network-config", "", "network configuration file (JSON)")
	fs.StringVar(&s.NATS, "nats", "", "NATS URL(s), comma-separated")
	fs.StringVar(&s.Tenant, "tenant", "", "tenant (NATS account) name, with --nats")
	fs.StringVar(&s.User, "user", "", "NATS user, with --nats")
	fs.StringVar(&s.Password, "password", "", "NATS password, with --nats (prefer FABRIC_PASSWORD)")
	fs.StringVar(&s.CredsFile, "creds", "", "NATS .creds file, with --nats")
	fs.StringVar(&pods, "pods", "", "comma-separated pod types to run (a type once per pod)")
	fs.StringVar(&s.Site, "site", "", "site of the workers and agents")
	fs.StringVar(&s.LicenseExpiry, "license-expires", "", "license expiry date (YYYY-MM-DD)")
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
		fs.Visit(func(f *flag.Flag) { file.override(f.Name, f.Value.String()) })
		s = *file
		if pods != "" {
			s.Pods = strings.Split(pods, ",")
		}
	} else if pods != "" {
		s.Pods = strings.Split(pods, ",")
	}
	return &s, nil
}

// ParseSettings reads settings from YAML, refusing unknown keys.
func ParseSettings(data []byte) (*Settings, error) {
	var s Settings
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("invalid settings: %v", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	return &s, nil
}

func (s *Settings) override(name, value string) {
	switch name {
	case "network-config":
		s.NetworkConfig = value
	case "nats":
		s.NATS = value
	case "tenant":
		s.Tenant = value
	case "user":
		s.User = value
	case "password":
		s.Password = value
	case "creds":
		s.CredsFile = value
	case "site":
		s.Site = value
	case "license-expires":
		s.LicenseExpiry = value
	}
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
	o = runner.Options{Config: cfg, Pods: pods, Site: s.Site, BuildTag: Version, PlatformVersion: Version}
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
	}
	r.Stop()
	logger.Printf("stopped")
	return 0
}
