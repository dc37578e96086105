package deliverer

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/fabricops/fabric/fabric/infra/secret"
	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/fabricops/fabric/fabric/infra/subscription"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// maxResponse is how much of a webhook's response is read (the rest is
// not: a huge answer costs nothing).
const maxResponse = 4 << 10

// sender returns what delivers to the subscription's target, and what
// releases it.
func (l *loop) sender(ctx context.Context) (sender, func(), error) {
	t := l.spec.Target
	if err := subscription.CheckTarget(t, l.spec.Stream); err != nil {
		return nil, nil, err
	}
	switch t.Type {
	case subscription.TypeStream:
		return l.streamSender(ctx, t)
	default:
		return l.webhookSender(ctx, t)
	}
}

// streamSender writes to one of the tenant's streams (the connection is
// the tenant's: no other tenant's stream is within reach), each record
// with the delivery's key as its message id, so that JetStream keeps one
// copy of a record delivered twice within the stream's duplicate window
// (2 minutes unless the stream says otherwise).
func (l *loop) streamSender(ctx context.Context, t subscription.Target) (sender, func(), error) {
	lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := l.d.js.Stream(lctx, streams.JetStreamName(t.Stream)); errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil, nil, fmt.Errorf("target.stream: no stream named %q (waiting for it)", t.Stream)
	} else if err != nil {
		return nil, nil, err
	}
	subject := streams.Subject(t.Stream)
	send := func(ctx context.Context, key string, _ uint64, data []byte) error {
		m := nats.NewMsg(subject)
		m.Data = data
		m.Header.Set(jetstream.MsgIDHeader, key)
		pctx, cancel := context.WithTimeout(ctx, l.d.o.Timeout)
		defer cancel()
		_, err := l.d.js.PublishMsg(pctx, m)
		if errors.Is(err, jetstream.ErrNoStreamResponse) {
			return fmt.Errorf("target.stream: no stream named %q", t.Stream)
		}
		if err != nil {
			return fmt.Errorf("writing to stream %s: %v", t.Stream, err)
		}
		return nil
	}
	return send, func() {}, nil
}

// webhookSender POSTs each record to the target's URL: bounded in time,
// redirects not followed, at most maxResponse of the answer read; signed
// when the target names a secret.
func (l *loop) webhookSender(ctx context.Context, t subscription.Target) (sender, func(), error) {
	var key []byte
	if t.Secret != "" {
		st, err := tenant.New(l.d.nc).Store(ctx)
		if err != nil {
			return nil, nil, err
		}
		if key, err = (&secret.Store{Store: st}).Reveal(ctx, t.Secret); err != nil {
			return nil, nil, fmt.Errorf("target.secret: %v", err)
		}
	}
	tlsConf := &tls.Config{MinVersion: tls.VersionTLS12}
	if t.CA != "" {
		pool, err := subscription.CertPool(t.CA)
		if err != nil {
			return nil, nil, fmt.Errorf("target.ca: %v", err)
		}
		tlsConf.RootCAs = pool
	}
	timeout := l.d.o.Timeout
	tr := &http.Transport{
		Proxy:                  http.ProxyFromEnvironment,
		DialContext:            (&net.Dialer{Timeout: min(timeout, 5*time.Second)}).DialContext,
		TLSClientConfig:        tlsConf,
		TLSHandshakeTimeout:    min(timeout, 5*time.Second),
		ResponseHeaderTimeout:  timeout,
		MaxIdleConnsPerHost:    2,
		MaxConnsPerHost:        2,
		IdleConnTimeout:        30 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
		DisableCompression:     true,
	}
	c := &http.Client{Transport: tr, Timeout: timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	send := func(ctx context.Context, idem string, seq uint64, data []byte) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.URL, bytes.NewReader(data))
		if err != nil {
			return permanent{err}
		}
		h := req.Header
		h.Set("Content-Type", "application/json")
		h.Set("User-Agent", "fabric-subscription")
		h.Set(subscription.IdempotencyHeader, idem)
		h.Set(subscription.SubscriptionHeader, l.spec.Name)
		h.Set("X-Fabric-Stream", l.spec.Stream)
		h.Set("X-Fabric-Sequence", strconv.FormatUint(seq, 10))
		if key != nil {
			mac := hmac.New(sha256.New, key)
			mac.Write(data)
			h.Set(subscription.SignatureHeader, "sha256="+hex.EncodeToString(mac.Sum(nil)))
		}
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxResponse))
		_ = resp.Body.Close()
		switch code := resp.StatusCode; {
		case code >= 200 && code < 300:
			return nil
		case code >= 300 && code < 400:
			return permanent{fmt.Errorf("HTTP %d: redirected to %q, and redirects are not followed", code, resp.Header.Get("Location"))}
		case code == http.StatusRequestTimeout || code == http.StatusTooManyRequests || code >= 500:
			return fmt.Errorf("HTTP %d", code)
		default:
			return permanent{fmt.Errorf("HTTP %d: the receiver refused the record", code)}
		}
	}
	return send, tr.CloseIdleConnections, nil
}
