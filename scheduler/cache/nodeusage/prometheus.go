package nodeusage

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// The PromQL that Volcano's prometheus source sends for each node, with
// the node's name as the instance label and the period: the CPU time not
// idle, and the memory not available, in percent, averaged over the
// period at a 30-second resolution.
const (
	cpuQuery    = `avg_over_time(clamp_min(100 - (avg by (instance) (rate(node_cpu_seconds_total{mode="idle",instance="%[1]s"}[5m])) * 100), 0)[%[2]s:30s])`
	memoryQuery = `100*avg_over_time(((1-node_memory_MemAvailable_bytes{instance="%[1]s"}/node_memory_MemTotal_bytes{instance="%[1]s"}))[%[2]s:30s])`
)

// The bounds of a Prometheus client: nodes measured at once, and the
// largest answer read (an instant vector of one series is a few hundred
// bytes).
const (
	prometheusWorkers = 8
	maxAnswer         = 1 << 20
)

// Prometheus measures node usage through a Prometheus server's HTTP query
// API (/api/v1/query), two instant queries per node.
type Prometheus struct {
	endpoint string
	client   *http.Client
	// now is the evaluation time of the queries.
	now func() time.Time
}

// NewPrometheus returns a client of the server at address, an http or
// https URL (a path is kept as a prefix, as behind a proxy).
func NewPrometheus(address string, insecureSkipVerify bool) (*Prometheus, error) {
	u, err := url.Parse(address)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("prometheus address %q: expected an http or https URL", address)
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConnsPerHost = prometheusWorkers
	if insecureSkipVerify {
		transport.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // the user asked for it (metrics tls.insecureSkipVerify)
	}
	return &Prometheus{
		endpoint: strings.TrimSuffix(u.String(), "/") + "/api/v1/query",
		client:   &http.Client{Transport: transport},
		now:      time.Now,
	}, nil
}

// Measure asks for each node's CPU and memory usage over api.UsagePeriod,
// a few nodes at a time. A node is measured when both queries return a
// finite value; its MetricsTime is the queries' evaluation time.
func (p *Prometheus) Measure(ctx context.Context, nodes []string) (map[string]*api.NodeUsage, []Failure) {
	var (
		mu       sync.Mutex
		out      = map[string]*api.NodeUsage{}
		failures []Failure
		wg       sync.WaitGroup
		next     = make(chan string)
	)
	for range min(prometheusWorkers, len(nodes)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for node := range next {
				u, err := p.measureNode(ctx, node)
				mu.Lock()
				if err != nil {
					failures = append(failures, Failure{Node: node, Err: err})
				} else {
					out[node] = u
				}
				mu.Unlock()
			}
		}()
	}
	for _, node := range nodes {
		next <- node
	}
	close(next)
	wg.Wait()
	return out, failures
}

func (p *Prometheus) measureNode(ctx context.Context, node string) (*api.NodeUsage, error) {
	at := p.now()
	cpu, err := p.query(ctx, fmt.Sprintf(cpuQuery, node, api.UsagePeriod), at)
	if err != nil {
		return nil, fmt.Errorf("CPU usage: %w", err)
	}
	mem, err := p.query(ctx, fmt.Sprintf(memoryQuery, node, api.UsagePeriod), at)
	if err != nil {
		return nil, fmt.Errorf("memory usage: %w", err)
	}
	return api.NewNodeUsage(at, cpu, mem), nil
}

// promAnswer is the envelope of every answer of Prometheus's HTTP API.
type promAnswer struct {
	Status    string `json:"status"`
	ErrorType string `json:"errorType"`
	Error     string `json:"error"`
	Data      struct {
		ResultType string `json:"resultType"`
		Result     []struct {
			// Value is [unix time, "value"].
			Value []json.RawMessage `json:"value"`
		} `json:"result"`
	} `json:"data"`
}

// errNoSample is a query answered with an empty vector: Prometheus has no
// series for the node (its instance label is not the node's name, or
// node-exporter does not run there).
var errNoSample = errors.New("Prometheus has no sample for the node (node-exporter's instance label must be the node name)")

// query runs an instant query and returns the value of the first series
// of the vector it answers, as Volcano takes it. It posts the query as a
// form, and asks again with GET where the server refuses POST, as
// Prometheus's Go client does.
func (p *Prometheus) query(ctx context.Context, promql string, at time.Time) (float64, error) {
	form := url.Values{"query": {promql}, "time": {strconv.FormatFloat(float64(at.UnixNano())/1e9, 'f', -1, 64)}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := p.client.Do(req)
	if err == nil && resp.StatusCode == http.StatusMethodNotAllowed {
		resp.Body.Close()
		if req, err = http.NewRequestWithContext(ctx, http.MethodGet, p.endpoint+"?"+form.Encode(), nil); err != nil {
			return 0, err
		}
		resp, err = p.client.Do(req)
	}
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return 0, fmt.Errorf("reading Prometheus's answer: %w", err)
	}
	if len(body) > maxAnswer {
		return 0, fmt.Errorf("Prometheus's answer is over %d bytes", maxAnswer)
	}
	var a promAnswer
	if err := json.Unmarshal(body, &a); err != nil || a.Status == "" {
		return 0, fmt.Errorf("Prometheus answered %s with no API response (is the address a Prometheus server?): %.120q", resp.Status, body)
	}
	if a.Status != "success" {
		return 0, fmt.Errorf("Prometheus answered %s: %s: %s", resp.Status, a.ErrorType, a.Error)
	}
	if a.Data.ResultType != "vector" {
		return 0, fmt.Errorf("Prometheus answered a %s, expected a vector", a.Data.ResultType)
	}
	if len(a.Data.Result) == 0 {
		return 0, errNoSample
	}
	v := a.Data.Result[0].Value
	var text string
	if len(v) != 2 || json.Unmarshal(v[1], &text) != nil {
		return 0, fmt.Errorf("Prometheus answered a sample that is not [time, \"value\"]")
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("Prometheus answered %q, not a finite number", text)
	}
	return f, nil
}
