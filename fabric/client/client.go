// Package client is the Go client of the fabric, what the shell's builtins
// call: it connects as a tenant and asks the fabric about its pods, their
// health and their controllers.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/infra/registry"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Timeout bounds a request to the fabric.
const Timeout = 10 * time.Second

// Client is a connection to a tenant of the fabric.
type Client struct {
	// Data is the tenant's data layer (datasets, objects, pipelines,
	// schemas), reached over the same connection.
	*tenant.Data
	Config *bus.Config
	nc     *nats.Conn
}

// Connect connects to the fabric that cfg describes.
func Connect(cfg *bus.Config) (*Client, error) {
	nc, err := bus.Connect(cfg, "client")
	if err != nil {
		return nil, err
	}
	return &Client{Data: tenant.New(nc), Config: cfg, nc: nc}, nil
}

// New returns a client over an open connection (a pod's own); Close
// closes that connection.
func New(nc *nats.Conn) *Client { return &Client{Data: tenant.New(nc), nc: nc} }

// Close closes the connection.
func (c *Client) Close() { c.nc.Close() }

// Conn returns the underlying NATS connection.
func (c *Client) Conn() *nats.Conn { return c.nc }

// Pods returns the info of every live pod, infra first.
func (c *Client) Pods(ctx context.Context) ([]api.PodInfo, error) {
	infos, err := ask[api.PodInfo](ctx, c, api.SubjectPods, api.EndpointInfo)
	if err != nil {
		return nil, fmt.Errorf("pods: %w", err)
	}
	api.SortPods(infos)
	return infos, nil
}

// Health returns the health rows of every live pod, gathered by the
// api-server in one request.
func (c *Client) Health(ctx context.Context) ([]api.HealthRow, error) {
	var rows []api.HealthRow
	if err := c.fanout(ctx, api.SubjectHealth, nil, &rows); err != nil {
		return nil, fmt.Errorf("healthcheck: %w", err)
	}
	return rows, nil
}

// fanout asks the api-server, in one request, a question it answers by
// asking the live pods (a fan-out), and decodes its answer into out.
func (c *Client) fanout(ctx context.Context, subject string, req, out any) error {
	msg, err := c.send(ctx, subject, req)
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		return errors.New("no api-server is running: it asks the pods (start one: client fabric up)")
	case err != nil:
		return fmt.Errorf("the api-server did not answer: %w", timeoutError(err))
	}
	return decode(msg.Data, out)
}

// Status returns the controller status of every live pod.
func (c *Client) Status(ctx context.Context) ([]api.ControllerStatus, error) {
	st, err := ask[api.ControllerStatus](ctx, c, api.SubjectStatus, api.EndpointStatus)
	if err != nil {
		return nil, fmt.Errorf("pod-controller status: %w", err)
	}
	return st, nil
}

// GC asks the api-server to sweep the tenant's unreferenced data and
// returns its report.
func (c *Client) GC(ctx context.Context, req api.GCRequest) (api.GCReport, error) {
	var out api.GCReport
	data, err := json.Marshal(req)
	if err != nil {
		return out, err
	}
	ctx, cancel := context.WithTimeout(ctx, api.GCTimeout)
	defer cancel()
	msg, err := c.nc.RequestWithContext(ctx, api.SubjectGC, data)
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		return out, errors.New("no api-server is running to sweep the data")
	case errors.Is(err, context.DeadlineExceeded):
		return out, fmt.Errorf("timed out after %s waiting for the api-server's sweep", api.GCTimeout)
	case err != nil:
		return out, err
	}
	return out, decode(msg.Data, &out)
}

// RestartTimeout bounds the wait for a restarted pod to answer again.
const RestartTimeout = 15 * time.Second

// Restart asks the controller of a pod to restart it in place and waits
// until the pod answers again; it returns the pod's new status.
func (c *Client) Restart(ctx context.Context, podID string) (api.ControllerStatus, error) {
	before, err := c.restart(ctx, podID)
	if err != nil {
		return before, err
	}
	deadline := time.Now().Add(RestartTimeout)
	for time.Now().Before(deadline) {
		rctx, cancel := context.WithTimeout(ctx, time.Second)
		msg, err := c.nc.RequestWithContext(rctx, api.PodSubject(podID, api.EndpointStatus), nil)
		cancel()
		var st api.ControllerStatus
		if err == nil && decode(msg.Data, &st) == nil && st.Restarts > before.Restarts {
			return st, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return before, fmt.Errorf("pod-controller restart: timed out after %s waiting for pod %s to answer again", RestartTimeout, podID)
}

func (c *Client) restart(ctx context.Context, podID string) (api.ControllerStatus, error) {
	var st api.ControllerStatus
	msg, err := c.send(ctx, api.PodSubject(podID, api.EndpointRestart), nil)
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		return st, fmt.Errorf("pod-controller restart: no live pod with id %s", podID)
	case err != nil:
		return st, fmt.Errorf("pod-controller restart: pod %s: %w", podID, timeoutError(err))
	}
	if err := decode(msg.Data, &st); err != nil {
		return st, fmt.Errorf("pod-controller restart: %w", err)
	}
	return st, nil
}

// ask asks the api-server in one request, or every registered pod itself
// when no api-server is up.
func ask[T any](ctx context.Context, c *Client, subject, endpoint string) ([]T, error) {
	var out []T
	err := c.askAPIServer(ctx, subject, &out)
	if errors.Is(err, nats.ErrNoResponders) {
		return gather[T](ctx, c, endpoint)
	}
	return out, err
}

// askRows is ask for endpoints that answer a list of rows each: the
// api-server's gathered rows, or each pod's, one after another.
func askRows[T any](ctx context.Context, c *Client, subject, endpoint string) ([]T, error) {
	var rows []T
	err := c.askAPIServer(ctx, subject, &rows)
	if errors.Is(err, nats.ErrNoResponders) {
		var per [][]T
		per, err = gather[[]T](ctx, c, endpoint)
		rows = nil
		for _, r := range per {
			rows = append(rows, r...)
		}
	}
	return rows, err
}

func (c *Client) askAPIServer(ctx context.Context, subject string, out any) error {
	msg, err := c.send(ctx, subject, nil)
	if err != nil {
		if errors.Is(err, nats.ErrNoResponders) {
			return err
		}
		return fmt.Errorf("the api-server did not answer: %w", timeoutError(err))
	}
	return decode(msg.Data, out)
}

// send sends v as JSON (nothing when v is nil) to subject and returns the
// answer, waiting at most Timeout: every request of the client but the
// polls of Restart goes through it.
func (c *Client) send(ctx context.Context, subject string, v any) (*nats.Msg, error) {
	var data []byte
	if v != nil {
		var err error
		if data, err = json.Marshal(v); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	return c.nc.RequestWithContext(ctx, subject, data)
}

// request sends v to subject and decodes the answer into out; what says
// what was asked, for errors.
func (c *Client) request(ctx context.Context, subject string, v, out any, what string) error {
	m, err := c.send(ctx, subject, v)
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		return fmt.Errorf("%s: %w", what, nats.ErrNoResponders)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("timed out after %s %s", Timeout, what)
	case err != nil:
		return fmt.Errorf("%s: %v", what, err)
	}
	return json.Unmarshal(m.Data, out)
}

// gather reads the registry and asks each pod's endpoint.
func gather[T any](ctx context.Context, c *Client, endpoint string) ([]T, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	js, err := jetstream.New(c.nc)
	if err != nil {
		return nil, err
	}
	regs, err := registry.List(ctx, js)
	if err != nil {
		return nil, err
	}
	answers, _, err := registry.Gather[T](ctx, c.nc, regs, endpoint)
	return answers, err
}

// decode reads an answer, which is either the value or {"error": "..."}.
func decode(data []byte, out any) error {
	// Only an object can be an error answer: a list (most answers) is
	// read once.
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && t[0] == '{' {
		var e api.Error
		if json.Unmarshal(data, &e) == nil && e.Error != "" {
			return errors.New(e.Error)
		}
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("bad answer from the fabric: %v", err)
	}
	return nil
}

func timeoutError(err error) error {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) {
		return fmt.Errorf("timed out after %s", Timeout)
	}
	return err
}

// JetStream returns the tenant's JetStream (its streams, KV buckets and
// object stores).
func (c *Client) JetStream() jetstream.JetStream {
	js, _ := jetstream.New(c.nc) // fails only for a nil connection
	return js
}
