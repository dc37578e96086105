package bus

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
)

// Tenant is a tenant of a server: a NATS account with JetStream and one
// user.
type Tenant struct {
	Name     string
	User     string
	Password string
	// Limits fence the tenant's JetStream (zero fields: DefaultLimits).
	Limits Limits
}

// Limits fence one tenant's share of a server's JetStream, so that no
// tenant can take another's storage: bytes on disk and in memory, streams
// (KV buckets and object stores are streams) and consumers. MaxStorage
// also bounds the tenant's embedded graph store, which counts against it
// with what JetStream holds (the graph pod reads both from the account).
// The embedded server lowers MaxStorage and MaxMemory to each tenant's
// share of what the host has (natsserver.FitTenants).
type Limits struct {
	MaxStorage   int64 `json:"max_storage,omitempty"`
	MaxMemory    int64 `json:"max_memory,omitempty"`
	MaxStreams   int   `json:"max_streams,omitempty"`
	MaxConsumers int   `json:"max_consumers,omitempty"`
	// MaxConnections and MaxSubscriptions bound the tenant's connections
	// to the server and their subscriptions: a tenant's idle connections
	// cannot take the file descriptors of a server (or an embedded
	// fabric) every tenant shares.
	MaxConnections   int `json:"max_connections,omitempty"`
	MaxSubscriptions int `json:"max_subscriptions,omitempty"`
}

// DefaultLimits are a tenant's limits unless configured: 10 GiB on disk,
// 256 MiB in memory, 100 streams, 1,000 consumers, 1,000 connections and
// 100,000 subscriptions.
var DefaultLimits = Limits{MaxStorage: 10 << 30, MaxMemory: 256 << 20, MaxStreams: 100, MaxConsumers: 1000,
	MaxConnections: 1000, MaxSubscriptions: 100_000}

// OrDefault fills l's zero fields from DefaultLimits.
func (l Limits) OrDefault() Limits {
	if l.MaxStorage == 0 {
		l.MaxStorage = DefaultLimits.MaxStorage
	}
	if l.MaxMemory == 0 {
		l.MaxMemory = DefaultLimits.MaxMemory
	}
	if l.MaxStreams == 0 {
		l.MaxStreams = DefaultLimits.MaxStreams
	}
	if l.MaxConsumers == 0 {
		l.MaxConsumers = DefaultLimits.MaxConsumers
	}
	if l.MaxConnections == 0 {
		l.MaxConnections = DefaultLimits.MaxConnections
	}
	if l.MaxSubscriptions == 0 {
		l.MaxSubscriptions = DefaultLimits.MaxSubscriptions
	}
	return l
}

// NewTenant returns a tenant whose user is its name, with a new random
// password.
func NewTenant(name string) (Tenant, error) {
	if err := ValidTenantName(name); err != nil {
		return Tenant{}, err
	}
	pw, err := NewPassword()
	if err != nil {
		return Tenant{}, err
	}
	return Tenant{Name: name, User: name, Password: pw}, nil
}

// NewPassword returns a new random password: 24 random bytes in URL-safe
// base64.
func NewPassword() (string, error) {
	buf := make([]byte, 24)
	if _, err := rand.Read(buf); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(buf), nil
}

// ValidTenantName checks a tenant name: 1 to 63 lower-case letters, digits,
// '_' and '-', starting with a letter or digit.
func ValidTenantName(name string) error {
	ok := len(name) > 0 && len(name) <= 63
	for i := 0; ok && i < len(name); i++ {
		c := name[i]
		ok = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || i > 0 && (c == '_' || c == '-')
	}
	if !ok {
		return fmt.Errorf("invalid tenant name %q: use lower-case letters, digits, '_' and '-'", name)
	}
	return nil
}
