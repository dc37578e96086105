package builtins

import "github.com/fabricops/fabric/fabric/client"

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
// first Client takes the configuration it read and the connection, or its
// failure, as its own (a Client that starts the local fabric drops them).
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

// takeAhead waits for the connection made ahead, if DialAhead started
// one that no one took yet, and keeps what it gave for connectWith. e.mu
// is held.
func (e *Env) takeAhead() *dialed {
	if e.ahead != nil {
		d := <-e.ahead
		e.ahead, e.dialed = nil, &d
	}
	return e.dialed
}

// loadConfig loads the network configuration at path: the one the
// connection made ahead read, when there is one. e.mu is held.
func (e *Env) loadConfig(path string) (*client.Config, error) {
	if d := e.takeAhead(); d != nil && d.cfg != nil {
		return d.cfg, nil
	}
	return client.LoadConfig(path)
}

// connectWith connects with cfg: the connection made ahead (or its
// failure) when cfg is the configuration it read, a new one otherwise.
// e.mu is held.
func (e *Env) connectWith(cfg *client.Config) (*client.Client, error) {
	d := e.takeAhead()
	e.dialed = nil
	if d != nil && d.cfg == cfg {
		return d.c, d.err
	}
	if d != nil && d.c != nil {
		d.c.Close()
	}
	return client.Connect(cfg)
}

// dropAhead closes the connection made ahead, if any, unused. e.mu is
// held.
func (e *Env) dropAhead() {
	if d := e.takeAhead(); d != nil && d.c != nil {
		d.c.Close()
	}
	e.dialed = nil
}
