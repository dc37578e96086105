package builtins

import (
	"context"

	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/lib/starvalue"
	"github.com/fabricops/fabric/runtime/doc"
	"go.starlark.net/starlark"
)

// subscriptionFunctions are delivery of the subscription module.
func (e *Env) subscriptionFunctions() starlark.StringDict {
	return starlark.StringDict{
		"delivery": doc.Builtin("subscription.delivery", `delivery(name=None)

Returns a subscription's delivery state as a dict: status (delivering,
retrying, waiting, disabled or not started), delivered, filtered (passed
over by its filter), failed (given up after the retries), pending (not
delivered yet), last_delivery, last_error and last_error_time. Without a
name, a dict of every subscription's state by name.`,
			func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				var name optString
				if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name?", &name); err != nil {
					return nil, err
				}
				return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
					r, err := artifactRepo(ctx, c)
					if err != nil {
						return nil, err
					}
					js := r.Store.JetStream()
					k := client.SubscriptionKind
					if name != "" {
						rec, err := r.Get(ctx, k, string(name))
						if err != nil {
							return nil, err
						}
						_, s, err := client.SubscriptionOfDocument(ctx, js, rec.Doc.JSON())
						if err != nil {
							return nil, err
						}
						return deliveryValue(s.Values()), nil
					}
					recs, err := r.List(ctx, k)
					if err != nil {
						return nil, err
					}
					all := make(starvalue.Map, 0, len(recs))
					for _, rec := range recs {
						n, s, err := client.SubscriptionOfDocument(ctx, js, rec.Doc.JSON())
						if err != nil {
							return nil, err
						}
						all = append(all, starvalue.KV{Key: n, Value: deliveryValue(s.Values())})
					}
					return all, nil
				})
			}),
	}
}

// deliveryValue orders a delivery state's fields.
func deliveryValue(v map[string]any) starvalue.Map {
	m := make(starvalue.Map, 0, len(client.SubscriptionFields))
	for _, f := range client.SubscriptionFields {
		m = append(m, starvalue.KV{Key: f, Value: v[f]})
	}
	return m
}
