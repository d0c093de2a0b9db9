package nodeusage

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// The metrics Volcano's prometheus_adaptor source reads from the custom
// metrics API, for nodes: the share of CPU and of memory in use (0 to 1),
// which the adapter's rules compute over the period.
const (
	CustomCPUMetric    = "node_cpu_usage_avg"
	CustomMemoryMetric = "node_memory_usage_avg"
)

// customMetricsGroup is the API group prometheus-adapter serves.
const customMetricsGroup = "custom.metrics.k8s.io"

// CustomMetrics measures node usage through the Kubernetes custom metrics
// API (custom.metrics.k8s.io, as prometheus-adapter serves it): one list of
// every node per metric.
type CustomMetrics struct {
	client rest.Interface
}

// NewCustomMetrics returns a client of the API server restConfig reaches.
func NewCustomMetrics(restConfig *rest.Config) (*CustomMetrics, error) {
	kube, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		return nil, fmt.Errorf("custom metrics client: %w", err)
	}
	return &CustomMetrics{client: kube.Discovery().RESTClient()}, nil
}

// metricValueList is what v1beta1 and v1beta2 of the custom metrics API
// share of a MetricValueList.
type metricValueList struct {
	Items []struct {
		DescribedObject struct {
			Kind string `json:"kind"`
			Name string `json:"name"`
		} `json:"describedObject"`
		Timestamp time.Time         `json:"timestamp"`
		Value     resource.Quantity `json:"value"`
	} `json:"items"`
}

// Measure lists both metrics for every node, at the version the API server
// prefers. A node is measured when both name it; the values are taken as
// percentages (times 100, as Volcano takes them) and the older of the two
// timestamps is its MetricsTime. A failed list fails every node.
func (c *CustomMetrics) Measure(ctx context.Context, nodes []string) (map[string]*api.NodeUsage, []Failure) {
	fail := func(err error) []Failure {
		out := make([]Failure, len(nodes))
		for i, n := range nodes {
			out[i] = Failure{Node: n, Err: err}
		}
		return out
	}
	version, err := c.preferredVersion(ctx)
	if err != nil {
		return nil, fail(err)
	}
	type sample struct {
		value float64
		at    time.Time
	}
	got := map[string]map[string]sample{}
	for _, metric := range []string{CustomCPUMetric, CustomMemoryMetric} {
		path := fmt.Sprintf("/apis/%s/%s/nodes/*/%s", customMetricsGroup, version, metric)
		raw, err := c.client.Get().AbsPath(path).Do(ctx).Raw()
		if err != nil {
			return nil, fail(fmt.Errorf("listing %s: %w", metric, err))
		}
		var list metricValueList
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, fail(fmt.Errorf("listing %s: %w", metric, err))
		}
		got[metric] = map[string]sample{}
		for _, item := range list.Items {
			if item.DescribedObject.Kind != "" && item.DescribedObject.Kind != "Node" {
				continue
			}
			got[metric][item.DescribedObject.Name] = sample{item.Value.AsApproximateFloat64() * 100, item.Timestamp}
		}
	}
	out := map[string]*api.NodeUsage{}
	var failures []Failure
	for _, n := range nodes {
		cpu, okCPU := got[CustomCPUMetric][n]
		mem, okMem := got[CustomMemoryMetric][n]
		switch {
		case !okCPU:
			failures = append(failures, Failure{Node: n, Err: fmt.Errorf("the custom metrics API lists no %s for the node", CustomCPUMetric)})
		case !okMem:
			failures = append(failures, Failure{Node: n, Err: fmt.Errorf("the custom metrics API lists no %s for the node", CustomMemoryMetric)})
		default:
			at := cpu.at
			if mem.at.Before(at) {
				at = mem.at
			}
			out[n] = api.NewNodeUsage(at, cpu.value, mem.value)
		}
	}
	return out, failures
}

// preferredVersion asks the API server which version of the custom
// metrics API it prefers, as Kubernetes's custom metrics client does.
func (c *CustomMetrics) preferredVersion(ctx context.Context) (string, error) {
	raw, err := c.client.Get().AbsPath("/apis/" + customMetricsGroup).Do(ctx).Raw()
	if err != nil {
		return "", fmt.Errorf("the API server does not serve %s (is prometheus-adapter installed?): %w", customMetricsGroup, err)
	}
	var group struct {
		PreferredVersion struct {
			Version string `json:"version"`
		} `json:"preferredVersion"`
	}
	if err := json.Unmarshal(raw, &group); err != nil || group.PreferredVersion.Version == "" {
		return "", fmt.Errorf("the API server's description of %s names no preferred version", customMetricsGroup)
	}
	return group.PreferredVersion.Version, nil
}
