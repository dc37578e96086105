package botpkg

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/lib/starvalue"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// The http module's bounds: a request's time, a response body's size.
const (
	httpTimeout  = 30 * time.Second
	httpMaxBody  = 16 << 20
	httpMaxTotal = 10_000
)

// httpKey holds a call's *httpPolicy in its thread.
const httpKey = "botpkg.http"

// httpPolicy is where a call's requests may go: the scheme, host and port
// of the source's configuration.
type httpPolicy struct {
	scheme, host, port string
	base               *url.URL
	client             *http.Client
	secrets            []string
	requests           int
}

// newHTTPPolicy reads hostname, port and scheme (http, or https when the
// port is 443) from a source's configuration; with no hostname, no
// request is allowed.
func newHTTPPolicy(config map[string]any, secrets []string) *httpPolicy {
	str := func(k string) string {
		if v, ok := config[k]; ok && v != nil {
			return strings.TrimSpace(fmt.Sprint(v))
		}
		return ""
	}
	p := &httpPolicy{host: str("hostname"), port: str("port"), scheme: str("scheme"), secrets: secrets}
	if p.host == "" {
		return p
	}
	if p.scheme == "" {
		p.scheme = "http"
		if p.port == "443" {
			p.scheme = "https"
		}
	}
	if p.port == "" {
		p.port = map[string]string{"http": "80", "https": "443"}[p.scheme]
	}
	p.base = &url.URL{Scheme: p.scheme, Host: net.JoinHostPort(p.host, p.port)}
	allowed := p.base.Host
	dialer := &net.Dialer{Timeout: 10 * time.Second}
	p.client = &http.Client{
		Transport: &http.Transport{
			Proxy: nil,
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				if addr != allowed {
					return nil, fmt.Errorf("the bot may reach only %s, not %s", allowed, addr)
				}
				return dialer.DialContext(ctx, network, addr)
			},
			TLSHandshakeTimeout:    10 * time.Second,
			ResponseHeaderTimeout:  httpTimeout,
			MaxResponseHeaderBytes: 1 << 20,
			DisableCompression:     false,
		},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 5 {
				return errors.New("too many redirects")
			}
			return p.allow(req.URL)
		},
	}
	return p
}

// allow refuses a URL outside the configured scheme, host and port.
func (p *httpPolicy) allow(u *url.URL) error {
	if p.base == nil {
		return fmt.Errorf("http: the bot runs with no configured hostname, so it may reach no host (refused %s)", u.Host)
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	if u.Scheme != p.scheme || !strings.EqualFold(u.Hostname(), p.host) || port != p.port {
		return fmt.Errorf("http: the bot may reach only %s, the source's configured host (refused %s://%s)", p.base, u.Scheme, u.Host)
	}
	return nil
}

// httpModule is the http module of bot packages.
var httpModule = &starlarkstruct.Module{Name: "http", Members: starlark.StringDict{
	"get":    starlark.NewBuiltin("http.get", httpCall),
	"post":   starlark.NewBuiltin("http.post", httpCall),
	"put":    starlark.NewBuiltin("http.put", httpCall),
	"delete": starlark.NewBuiltin("http.delete", httpCall),
}}

// httpCall is http.METHOD(url, headers={}, params={}, body="", json=None,
// timeout=30): a path alone is relative to the configured host.
func httpCall(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var raw string
	var headers, params *starlark.Dict
	var body starlark.Value = starlark.None
	var jsonBody starlark.Value = starlark.None
	timeout := httpTimeout.Seconds()
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "url", &raw, "headers?", &headers, "params?", &params,
		"body?", &body, "json?", &jsonBody, "timeout?", &timeout); err != nil {
		return nil, err
	}
	p, _ := thread.Local(httpKey).(*httpPolicy)
	if p == nil {
		return nil, fmt.Errorf("%s: no network in this thread", b.Name())
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: the URL is not valid", b.Name())
	}
	if !u.IsAbs() && p.base != nil {
		u = p.base.ResolveReference(u)
	}
	if err := p.allow(u); err != nil {
		return nil, err
	}
	if p.requests++; p.requests > httpMaxTotal {
		return nil, fmt.Errorf("%s: more than %d requests in one call", b.Name(), httpMaxTotal)
	}
	if params != nil {
		q := u.Query()
		for _, it := range params.Items() {
			k, _ := starlark.AsString(it[0])
			v, ok := starlark.AsString(it[1])
			if !ok {
				v = it[1].String()
			}
			q.Set(k, v)
		}
		u.RawQuery = q.Encode()
	}
	var reader io.Reader
	contentType := ""
	if jsonBody != starlark.None {
		v, err := starvalue.FromStarlark(jsonBody)
		if err != nil {
			return nil, fmt.Errorf("%s: json: %v", b.Name(), err)
		}
		data, err := jsonMarshal(v)
		if err != nil {
			return nil, fmt.Errorf("%s: json: %v", b.Name(), err)
		}
		reader, contentType = bytes.NewReader(data), "application/json"
	} else if s, ok := starlark.AsString(body); ok {
		reader = strings.NewReader(s)
	}
	timeout = min(max(timeout, 0.001), httpTimeout.Seconds())
	ctx, cancel := context.WithTimeout(threadContext(thread), time.Duration(timeout*float64(time.Second)))
	defer cancel()
	method := strings.ToUpper(strings.TrimPrefix(b.Name(), "http."))
	req, err := http.NewRequestWithContext(ctx, method, u.String(), reader)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name(), err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if headers != nil {
		for _, it := range headers.Items() {
			k, _ := starlark.AsString(it[0])
			v, ok := starlark.AsString(it[1])
			if !ok {
				v = it[1].String()
			}
			req.Header.Set(k, v)
		}
	}
	resp, err := p.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("%s %s: no answer within %gs", b.Name(), u.Redacted(), timeout)
		}
		return nil, fmt.Errorf("%s %s: %v", b.Name(), u.Redacted(), err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, httpMaxBody+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: reading the answer: %v", b.Name(), u.Redacted(), err)
	}
	if len(data) > httpMaxBody {
		return nil, fmt.Errorf("%s %s: the answer is over the size limit of %s", b.Name(), u.Redacted(), bytesText(httpMaxBody))
	}
	return response(resp, data), nil
}

// response is an answer as a struct: status_code, headers, text, json().
func response(resp *http.Response, data []byte) starlark.Value {
	h := starlark.NewDict(len(resp.Header))
	keys := make([]string, 0, len(resp.Header))
	for k := range resp.Header {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		_ = h.SetKey(starlark.String(strings.ToLower(k)), starlark.String(resp.Header.Get(k)))
	}
	text := starlark.String(data)
	decode := starlark.NewBuiltin("json", func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 0); err != nil {
			return nil, err
		}
		return starlark.Call(thread, jsonModule.Members["decode"], starlark.Tuple{text}, nil)
	})
	return starlarkstruct.FromStringDict(starlark.String("response"), starlark.StringDict{
		"status_code": starlark.MakeInt(resp.StatusCode),
		"ok":          starlark.Bool(resp.StatusCode < 400),
		"headers":     h,
		"text":        text,
		"json":        decode,
		"reason":      starlark.String(strings.TrimSpace(strings.TrimPrefix(resp.Status, strconv.Itoa(resp.StatusCode)))),
	})
}

// ctxKey holds a thread's context.
const ctxKey = "botpkg.ctx"

// Context is the context a bot's (or a test's) thread runs under: the
// job's time limit and cancellation.
func Context(thread *starlark.Thread) context.Context { return threadContext(thread) }

func threadContext(thread *starlark.Thread) context.Context {
	if ctx, ok := thread.Local(ctxKey).(context.Context); ok {
		return ctx
	}
	return context.Background()
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
