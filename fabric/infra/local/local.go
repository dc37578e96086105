// Package local is the embedded default as the shell sees it: the local
// fabric that runs on this machine with no configuration. "client fabric
// up" starts "fabricd local" in the background (an embedded nats-server on
// 127.0.0.1 with JetStream under $FABRIC_HOME/local, one account per
// tenant, and each tenant's pods; see package embedded) and waits for the
// state file it writes; down, status and logs read and signal that process.
// It links no pod: the files under $FABRIC_HOME/local are the contract.
package local

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/lib/safefile"
)

// DefaultTenant is the tenant of a local fabric started without --tenants.
const DefaultTenant = "default"

// DefaultWorkers is how many workers each tenant gets.
const DefaultWorkers = 2

// Site is the site of the local fabric's workers and agents.
const Site = "local"

// State is what a running local fabric records in $FABRIC_HOME/local/fabric.json.
type State struct {
	PID            int      `json:"pid"`
	URL            string   `json:"url"`
	Port           int      `json:"port"`
	Tenants        []string `json:"tenants"`
	Workers        int      `json:"workers"`
	StartedAt      string   `json:"started_at"`
	LicenseExpires string   `json:"license_expires"`
	Version        string   `json:"version"`
	// Build identifies the binary the fabric runs (see BuildID).
	Build string `json:"build,omitempty"`
}

// BuildID identifies the binary at path by its path, size and
// modification time: a rebuilt or upgraded fabricd has another one. It is
// cheap (one stat), so the client can tell at each start whether the
// local fabric runs the fabricd it would start now. With path "" it is
// this process's own binary.
func BuildID(path string) string {
	if path == "" {
		exe, err := os.Executable()
		if err != nil {
			return ""
		}
		path = exe
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	st, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s:%d:%d", path, st.Size(), st.ModTime().UnixNano())
}

// Home is FABRIC_HOME: the directory of the network configuration, the
// local fabric's data, the REPL's history and user scripts (default
// ~/.fabric).
func Home() string {
	if h := os.Getenv("FABRIC_HOME"); h != "" {
		return h
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".fabric")
	}
	return ".fabric"
}

// Paths of the local fabric's files under a FABRIC_HOME.
func Dir(home string) string { return filepath.Join(home, "local") }

// UpgradeTokenFile is the file of the local fabric's upgrade token,
// written by the process at each start, readable by its owner only.
func UpgradeTokenFile(home string) string { return filepath.Join(Dir(home), "upgrade.token") }

// NewUpgradeToken writes a new random upgrade token and returns it.
func NewUpgradeToken(home string) (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	token := hex.EncodeToString(b)
	return token, safefile.WriteMode(UpgradeTokenFile(home), 0o600, func(w io.Writer) error {
		_, err := io.WriteString(w, token)
		return err
	})
}

// UpgradeToken reads the local fabric's upgrade token ("" when there is
// none).
func UpgradeToken(home string) string {
	data, err := os.ReadFile(UpgradeTokenFile(home))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// BuildsDir is the local fabric's upgrades directory: the builds
// 'client fabric upgrade' copies there, which the local fabric may run
// in its place.
func BuildsDir(home string) string { return filepath.Join(Dir(home), "builds") }
func stateFile(home string) string { return filepath.Join(Dir(home), "fabric.json") }

// LogFile is where the local fabric logs.
func LogFile(home string) string { return filepath.Join(Dir(home), "fabric.log") }

// settingsFile keeps what must survive restarts: the port and license.
func settingsFile(home string) string { return filepath.Join(Dir(home), "settings.json") }

// DataDir is a local tenant's directory of files, the only files its
// pipelines' @files:loadfile reads.
func DataDir(home, tenant string) string { return filepath.Join(Dir(home), "data", tenant) }

// TenantConfigPath is the network configuration of a local tenant.
func TenantConfigPath(home, tenant string) string {
	return bus.TenantConfigPath(home, tenant)
}

// Status returns the running local fabric's state, or nil when none runs.
func Status(home string) (*State, error) {
	data, err := os.ReadFile(stateFile(home))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var st State
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("local fabric state %s is malformed: %v", stateFile(home), err)
	}
	if !Alive(st.PID) {
		return nil, nil // a crashed fabric leaves its state behind
	}
	return &st, nil
}

// Alive reports whether the process pid runs: it exists and is neither a
// zombie nor ending (a fabric killed a moment ago).
func Alive(pid int) bool { return Exists(pid) && !ending(pid) }

// Exists reports whether a process pid exists, zombies included.
func Exists(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// Settings are what survive restarts of the local fabric: its port,
// license, tenants and workers.
type Settings struct {
	Port           int      `json:"port"`
	LicenseExpires string   `json:"license_expires"`
	Tenants        []string `json:"tenants"`
	Workers        int      `json:"workers"`
	// GraphDB, when its URL is set, is a graph database of the user's
	// (a real ArangoDB) that the tenants use instead of the embedded one.
	GraphDB bus.GraphDBConfig `json:"graphdb,omitempty"`
}

// LoadSettings reads the settings of the last run (zero when none).
func LoadSettings(home string) Settings {
	var s Settings
	data, err := os.ReadFile(settingsFile(home))
	if err == nil {
		_ = json.Unmarshal(data, &s)
	}
	return s
}

// SaveSettings writes the settings for the next run.
func SaveSettings(home string, s Settings) error { return writeJSON(settingsFile(home), s, 0o600) }

// WriteState records a running fabric's state: from then on Status
// reports it.
func WriteState(home string, st State) error { return writeJSON(stateFile(home), st, 0o600) }

// RemoveState removes the state of a fabric that stops.
func RemoveState(home string) { os.Remove(stateFile(home)) }

func writeJSON(path string, v any, mode fs.FileMode) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return safefile.WriteMode(path, mode, func(w io.Writer) error {
		_, err := w.Write(append(data, '\n'))
		return err
	})
}

// NATSLogFile is the log of the local fabric's NATS server.
func NATSLogFile(home string) string { return filepath.Join(Dir(home), "nats.log") }
