package bus

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
)

// DialTimeout bounds connecting to a server.
const DialTimeout = 3 * time.Second

// ErrUnreachable wraps failures to reach the servers of a configuration.
var ErrUnreachable = errors.New("cannot reach the fabric")

// Connect connects to the configuration's servers as its tenant user.
// name identifies the connection (a pod id, "client").
func Connect(c *Config, name string, extra ...nats.Option) (*nats.Conn, error) {
	opts := []nats.Option{
		nats.Name(name),
		nats.Timeout(DialTimeout),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond),
		nats.NoCallbacksAfterClientClose(),
	}
	switch {
	case c.NATS.User != "":
		opts = append(opts, nats.UserInfo(c.NATS.User, c.NATS.Password))
	case c.NATS.CredsFile != "":
		opts = append(opts, nats.UserCredentials(c.NATS.CredsFile))
	case c.NATS.NKeySeed != "":
		opt, err := nkeyOption(c.NATS.NKeySeed)
		if err != nil {
			return nil, err
		}
		opts = append(opts, opt)
	}
	if t := c.NATS.TLS; t != nil {
		if t.CAFile != "" {
			opts = append(opts, nats.RootCAs(t.CAFile))
		}
		if t.CertFile != "" || t.KeyFile != "" {
			opts = append(opts, nats.ClientCert(t.CertFile, t.KeyFile))
		}
	}
	opts = append(opts, extra...)
	nc, err := nats.Connect(strings.Join(c.NATS.URLs, ","), opts...)
	if err != nil {
		return nil, connectError(c, err)
	}
	return nc, nil
}

func connectError(c *Config, err error) error {
	where := strings.Join(c.NATS.URLs, ", ")
	switch {
	case errors.Is(err, nats.ErrAuthorization) || strings.Contains(strings.ToLower(err.Error()), "authorization"):
		return fmt.Errorf("the fabric at %s refused the credentials of tenant %q: check user and password (FABRIC_USER, FABRIC_PASSWORD)", where, c.Tenant)
	case errors.Is(err, nats.ErrNoServers) || strings.Contains(err.Error(), "connection refused"):
		return fmt.Errorf("%w at %s: no server answers (is it running? 'client fabric status' for the local fabric)", ErrUnreachable, where)
	case errors.Is(err, nats.ErrTimeout) || strings.Contains(err.Error(), "timeout"):
		return fmt.Errorf("%w at %s: timed out after %s connecting", ErrUnreachable, where, DialTimeout)
	}
	return fmt.Errorf("%w at %s: %v", ErrUnreachable, where, err)
}
