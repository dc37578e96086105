package builtins

import (
	"reflect"

	"github.com/fabricops/fabric/fabric/client"
)

// dialed is a connection made ahead (DialAhead): the configuration it
// was made from, and the connection or why there is none.
type dialed struct {
	cfg *client.Config
	c   *client.Client
	err error
}

// DialAhead starts connecting to the fabric in the background, for a
// command that will use it: the connection's round trips then overlap
// the loading of the command's script. It connects only where the
// network configuration says (it never starts the local fabric); the
// first Client takes the connection, or its failure, as its own when it
// connects with the same configuration, and makes its own otherwise.
// Call it before any Client.
func (e *Env) DialAhead() {
	ahead := make(chan dialed, 1)
	e.mu.Lock()
	e.ahead = ahead
	e.mu.Unlock()
	go func() {
		cfg, err := client.LoadConfig(client.ConfigPath(e.Home))
		if err != nil {
			ahead <- dialed{err: err}
			return
		}
		c, err := client.Connect(cfg)
		ahead <- dialed{cfg: cfg, c: c, err: err}
	}()
}

// loadConfig loads the network configuration at path: the one the
// connection made ahead was made from, when there is one. e.mu is held.
func (e *Env) loadConfig(path string) (*client.Config, error) {
	if e.ahead != nil {
		d := <-e.ahead
		e.ahead, e.dialed = nil, &d
		if d.cfg != nil && path == client.ConfigPath(e.Home) {
			return d.cfg, nil
		}
	}
	return client.LoadConfig(path)
}

// connectWith connects with cfg, taking the connection made ahead when it
// was made with the same configuration (and closing it otherwise).
// e.mu is held.
func (e *Env) connectWith(cfg *client.Config) (*client.Client, error) {
	if e.ahead != nil {
		d := <-e.ahead
		e.ahead, e.dialed = nil, &d
	}
	d := e.dialed
	e.dialed = nil
	if d == nil {
		return client.Connect(cfg)
	}
	if d.cfg != nil && reflect.DeepEqual(*d.cfg, *cfg) {
		return d.c, d.err
	}
	if d.c != nil {
		d.c.Close()
	}
	return client.Connect(cfg)
}

// dropAhead closes the connection made ahead, if any, unused. e.mu is
// held.
func (e *Env) dropAhead() {
	if e.ahead != nil {
		d := <-e.ahead
		e.ahead, e.dialed = nil, &d
	}
	if d := e.dialed; d != nil && d.c != nil {
		d.c.Close()
	}
	e.dialed = nil
}
