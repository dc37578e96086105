// Package bus is the fabric's NATS client layer: the network configuration
// file that tells a client or a pod which tenant to be and how to reach
// it, the connection made from it, and tenants (each a NATS account with
// JetStream of its own). The server side is package natsserver.
package bus

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/fabricops/fabric/fabric/lib/safefile"
)

// ConfigFileName is the network configuration's file name.
const ConfigFileName = "fabric_network_config.json"

// Config is the network configuration (SPEC 5): which tenant, which NATS
// servers, which credentials, and where the graph database is.
type Config struct {
	// Tenant names the tenant (a NATS account on the servers).
	Tenant string `json:"tenant"`
	// NATS says how to reach the message bus.
	NATS NATSConfig `json:"nats"`
	// GraphDB says where the graph database is (empty: embedded).
	GraphDB GraphDBConfig `json:"graphdb,omitempty"`
	// Portal says where the portal serves the tenant's dashboards.
	Portal PortalConfig `json:"portal,omitempty"`
	// Local is set for the local fabric started by "client fabric up": a
	// client that cannot reach it starts it again.
	Local bool `json:"local,omitempty"`
}

// NATSConfig holds the server URLs and one form of credentials.
type NATSConfig struct {
	URLs []string `json:"urls"`
	// User and Password, or CredsFile (a NATS .creds file), or NKeySeed.
	User      string `json:"user,omitempty"`
	Password  string `json:"password,omitempty"`
	CredsFile string `json:"creds_file,omitempty"`
	NKeySeed  string `json:"nkey_seed,omitempty"`
	// TLS, when set, verifies the servers with CAFile and presents
	// CertFile/KeyFile as the client certificate.
	TLS *TLSConfig `json:"tls,omitempty"`
}

// TLSConfig names PEM files.
type TLSConfig struct {
	CAFile   string `json:"ca_file,omitempty"`
	CertFile string `json:"cert_file,omitempty"`
	KeyFile  string `json:"key_file,omitempty"`
}

// PortalConfig locates the portal: the URL a browser opens (the local
// fabric writes it; a production configuration sets it).
type PortalConfig struct {
	URL string `json:"url,omitempty"`
}

// GraphDBConfig locates the graph database (ArangoDB HTTP API).
type GraphDBConfig struct {
	URL      string `json:"url,omitempty"`
	User     string `json:"user,omitempty"`
	Password string `json:"password,omitempty"`
}

// ErrNoConfig is returned by LoadConfig when the file does not exist.
var ErrNoConfig = errors.New("no network configuration")

// ConfigPath returns the network configuration's path: $FABRIC_NETWORK_CONFIG,
// or that of the project in use (see UseProject), or
// home/fabric_network_config.json.
func ConfigPath(home string) string {
	if p := os.Getenv("FABRIC_NETWORK_CONFIG"); p != "" {
		return p
	}
	if name, _ := CurrentProject(home); name != "" {
		if p, err := LoadProject(home, name); err == nil {
			return p.ConfigPath(home)
		}
	}
	return filepath.Join(home, ConfigFileName)
}

// LoadConfig reads and validates a network configuration, then applies the
// FABRIC_USER and FABRIC_PASSWORD overrides. A missing file is ErrNoConfig
// (wrapped with the path); any other problem is an error naming the file
// and what to do.
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w at %s: run 'client fabric up' for a local fabric, or save your tenant's file there (or name it in FABRIC_NETWORK_CONFIG)", ErrNoConfig, path)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read the network configuration: %v", err)
	}
	var c Config
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("network configuration %s is malformed: %v", path, jsonProblem(data, err))
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("network configuration %s is incomplete: %v", path, err)
	}
	if u := os.Getenv("FABRIC_USER"); u != "" {
		c.NATS.User = u
	}
	if p := os.Getenv("FABRIC_PASSWORD"); p != "" {
		c.NATS.Password = p
	}
	return &c, nil
}

// Validate checks that a configuration names a tenant, at least one URL
// and at most one form of credentials.
func (c *Config) Validate() error {
	if c.Tenant == "" {
		return errors.New(`"tenant" is missing`)
	}
	if len(c.NATS.URLs) == 0 {
		return errors.New(`"nats.urls" lists no server`)
	}
	for _, u := range c.NATS.URLs {
		if !strings.Contains(u, "://") {
			return fmt.Errorf("nats url %q has no scheme (nats://host:port)", u)
		}
	}
	forms := 0
	for _, set := range []bool{c.NATS.User != "" || c.NATS.Password != "", c.NATS.CredsFile != "", c.NATS.NKeySeed != ""} {
		if set {
			forms++
		}
	}
	if forms > 1 {
		return errors.New("give one form of credentials: user/password, creds_file or nkey_seed")
	}
	return nil
}

// Save writes the configuration to path with mode 0600, atomically.
func (c *Config) Save(path string) error {
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return safefile.WriteMode(path, 0o600, func(w io.Writer) error {
		_, err := w.Write(append(data, '\n'))
		return err
	})
}

// Checksum identifies the configuration's non-secret content (tenant and
// URLs), as pods report it in objstore_info.config_checksum.
func (c *Config) Checksum() string {
	sum := sha256.Sum256([]byte(c.Tenant + "\n" + strings.Join(c.NATS.URLs, ",")))
	return hex.EncodeToString(sum[:])[:16]
}

// Redacted returns a copy whose secrets are replaced by "<redacted>", for
// printing.
func (c *Config) Redacted() Config {
	r := *c
	for _, s := range []*string{&r.NATS.Password, &r.NATS.NKeySeed, &r.GraphDB.Password} {
		if *s != "" {
			*s = "<redacted>"
		}
	}
	return r
}

func jsonProblem(data []byte, err error) string {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		line := 1 + strings.Count(string(data[:min(int(syn.Offset), len(data))]), "\n")
		return fmt.Sprintf("line %d: %v", line, syn)
	}
	return err.Error()
}
