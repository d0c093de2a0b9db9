package extender

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
	"strings"
	"sync"
	"time"
)

// maxAnswerBytes bounds an answer, as Volcano bounds it (10 MiB): a broken
// extender must not make the scheduler read without end.
const maxAnswerBytes = 10 << 20

// maxErrorBodyBytes is how much of a non-200 answer goes into the error.
const maxErrorBodyBytes = 256

// endpoint is one extender address with its HTTP client. Sessions come and
// go, but the endpoint outlives them, so that its connections stay open from
// one session to the next instead of paying a TCP handshake per session.
type endpoint struct {
	prefix  string
	timeout time.Duration
	client  *http.Client
	// slots holds a token per request in flight; its capacity is
	// extender.maxConcurrentRequests.
	slots chan struct{}
}

func newEndpoint(cfg *Config) *endpoint {
	limit := cfg.MaxConcurrentRequests
	transport := &http.Transport{
		// As Volcano's client does (it uses the default transport), honour
		// HTTP_PROXY and NO_PROXY.
		Proxy:       http.ProxyFromEnvironment,
		DialContext: (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		// The default transport keeps 2 idle connections per host: under
		// concurrent calls every third one would open and close a
		// connection. Keep one per request slot instead.
		MaxIdleConns:        limit,
		MaxIdleConnsPerHost: limit,
		MaxConnsPerHost:     limit,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
		ForceAttemptHTTP2:   true,
		// Answers are small and usually on loopback or in-cluster:
		// compressing them costs more CPU than it saves time.
		DisableCompression: true,
	}
	return &endpoint{
		prefix:  cfg.URLPrefix,
		timeout: cfg.HTTPTimeout,
		client:  &http.Client{Transport: transport},
		slots:   make(chan struct{}, limit),
	}
}

// pool hands out one endpoint per distinct address, timeout and limit, so
// that the sessions of one configuration share connections while a reloaded
// configuration with another timeout gets its own client.
type pool struct {
	mu        sync.Mutex
	endpoints map[endpointKey]*endpoint
}

type endpointKey struct {
	prefix  string
	timeout time.Duration
	limit   int
}

func (p *pool) endpoint(cfg *Config) *endpoint {
	key := endpointKey{cfg.URLPrefix, cfg.HTTPTimeout, cfg.MaxConcurrentRequests}
	p.mu.Lock()
	defer p.mu.Unlock()
	if e, ok := p.endpoints[key]; ok {
		return e
	}
	if p.endpoints == nil {
		p.endpoints = map[endpointKey]*endpoint{}
	}
	e := newEndpoint(cfg)
	p.endpoints[key] = e
	return e
}

// post sends body as JSON to the call's verb and decodes the answer into
// out; with out nil the answer's body is not read, as Volcano does not read
// it for onSessionOpen and onSessionClose. Every failure is a *CallError.
func (e *endpoint) post(call Call, verb string, body, out any) error {
	start := time.Now()
	err := e.do(call, e.prefix+"/"+verb, body, out)
	observe(call, start, err)
	return err
}

func (e *endpoint) do(call Call, target string, body, out any) error {
	fail := func(cause Cause, status int, err error) error {
		return &CallError{Call: call, URL: target, Cause: cause, StatusCode: status, Err: err}
	}
	payload, err := json.Marshal(body)
	if err != nil {
		// Our own types always encode; this would be a bug here, not there.
		return fail(CauseTransport, 0, fmt.Errorf("encoding the request: %w", err))
	}
	ctx, cancel := context.WithTimeout(context.Background(), e.timeout)
	defer cancel()
	select {
	case e.slots <- struct{}{}:
		defer func() { <-e.slots }()
	case <-ctx.Done():
		return fail(CauseTimeout, 0, fmt.Errorf("all %d request slots (%s) stayed busy for %v",
			cap(e.slots), MaxConcurrentRequestsKey, e.timeout))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(payload))
	if err != nil {
		return fail(CauseTransport, 0, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := e.client.Do(req)
	if err != nil {
		return fail(e.classify(ctx, err))
	}
	// Reading what is left lets the connection go back to the pool.
	defer func() {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxAnswerBytes))
		resp.Body.Close()
	}()
	if resp.StatusCode != http.StatusOK {
		snippet, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBodyBytes))
		msg := fmt.Sprintf("HTTP %s", resp.Status)
		if s := strings.TrimSpace(string(snippet)); s != "" {
			msg += fmt.Sprintf(": %q", s)
		}
		return fail(CauseStatus, resp.StatusCode, errors.New(msg))
	}
	if out == nil {
		return nil
	}
	limited := &io.LimitedReader{R: resp.Body, N: maxAnswerBytes + 1}
	if err := json.NewDecoder(limited).Decode(out); err != nil {
		if limited.N <= 0 {
			return fail(CauseDecode, resp.StatusCode, fmt.Errorf("the answer is larger than %d bytes", maxAnswerBytes))
		}
		if ctx.Err() != nil {
			return fail(CauseTimeout, resp.StatusCode, fmt.Errorf("no complete answer within %v (%s)", e.timeout, HTTPTimeoutKey))
		}
		return fail(CauseDecode, resp.StatusCode, fmt.Errorf("decoding the answer: %w", err))
	}
	return nil
}

// classify names why a request got no answer, without repeating the URL
// that net/http puts in its errors.
func (e *endpoint) classify(ctx context.Context, err error) (Cause, int, error) {
	if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
		return CauseTimeout, 0, fmt.Errorf("no answer within %v (%s)", e.timeout, HTTPTimeoutKey)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return CauseTransport, 0, err
}
