package client

import (
	"context"
	"fmt"
	"strconv"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/nats-io/nats.go/jetstream"
)

// Limits returns the limits in force on the tenant: the pods' (jobs,
// queries, endpoints, asked of the api-server, or of each pod when there
// is none) and the tenant's own in the fabric's server (storage, memory,
// streams, consumers of its account).
func (c *Client) Limits(ctx context.Context) ([]api.LimitRow, error) {
	rows, err := askRows[api.LimitRow](ctx, c, api.SubjectLimits, api.EndpointLimits)
	if err != nil {
		return nil, fmt.Errorf("limits: %w", err)
	}
	account, err := c.accountLimits(ctx)
	if err != nil {
		return nil, fmt.Errorf("limits: %w", err)
	}
	return append(account, api.MergeLimits([][]api.LimitRow{rows})...), nil
}

// accountLimits are the JetStream limits of the tenant's account.
func (c *Client) accountLimits(ctx context.Context) ([]api.LimitRow, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	js, err := jetstream.New(c.nc)
	if err != nil {
		return nil, err
	}
	info, err := js.AccountInfo(ctx)
	if err != nil {
		return nil, fmt.Errorf("the tenant's account: %w", timeoutError(err))
	}
	const setBy = "the tenant's account in the fabric's server (fabricd server-config)"
	count := func(n int) string {
		if n < 0 {
			return "unlimited"
		}
		return strconv.Itoa(n)
	}
	mb := func(n int64) string {
		if n < 0 {
			return "unlimited"
		}
		return strconv.FormatInt(n>>20, 10)
	}
	l := info.Limits
	return []api.LimitRow{
		{Scope: "tenant", Limit: "max_storage_mb", Value: mb(l.MaxStore), SetBy: setBy},
		{Scope: "tenant", Limit: "max_memory_mb", Value: mb(l.MaxMemory), SetBy: setBy},
		{Scope: "tenant", Limit: "max_streams", Value: count(l.MaxStreams), SetBy: setBy},
		{Scope: "tenant", Limit: "max_consumers", Value: count(l.MaxConsumers), SetBy: setBy},
	}, nil
}
