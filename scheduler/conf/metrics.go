package conf

import (
	"net/url"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Metrics is the configuration's metrics section: where the node usage
// that the usage plugin reads comes from. Volcano v1.15 reads the same
// keys, as flat strings (volcano-sh/volcano@8fc394c11e8d (v1.15.0),
// pkg/scheduler/conf MetricsConfiguration and pkg/scheduler/cache).
type Metrics struct {
	// Type is MetricsPrometheus or MetricsPrometheusAdaptor; "" (the
	// section absent) measures nothing.
	Type string
	// Address is the Prometheus server's URL, for MetricsPrometheus.
	Address string
	// Interval is the time between two measures (DefaultMetricsInterval).
	Interval time.Duration
	// InsecureSkipVerify turns off the check of the server's TLS
	// certificate (tls.insecureSkipVerify).
	InsecureSkipVerify bool
}

// The metrics source types Caldera implements.
const (
	// MetricsPrometheus asks a Prometheus server's HTTP API.
	MetricsPrometheus = "prometheus"
	// MetricsPrometheusAdaptor asks the Kubernetes custom metrics API
	// (custom.metrics.k8s.io), as served by prometheus-adapter.
	MetricsPrometheusAdaptor = "prometheus_adaptor"
)

// DefaultMetricsInterval is Volcano's interval between two measures.
const DefaultMetricsInterval = 30 * time.Second

// The keys of the metrics section, Volcano's.
const (
	metricsType     = "type"
	metricsAddress  = "address"
	metricsInterval = "interval"
	metricsInsecure = "tls.insecureSkipVerify"
)

// elasticsearchKeys are Volcano's keys for its elasticsearch source.
var elasticsearchKeys = []string{"elasticsearch.index", "elasticsearch.username", "elasticsearch.password", "elasticsearch.hostnameFieldName"}

// metrics reads the metrics section. Every value is a scalar, as Volcano,
// which reads the section as a map of strings, requires: a nested mapping
// such as tls: {insecureSkipVerify: ...} makes Volcano refuse the whole
// file, and Caldera says how to write it.
func (p parser) metrics(n *yaml.Node) (Metrics, error) {
	m := Metrics{Interval: DefaultMetricsInterval}
	if n.Kind == yaml.ScalarNode && (n.Tag == "!!null" || n.Value == "") {
		return m, nil
	}
	if n.Kind != yaml.MappingNode {
		return m, p.errorf(n, "metrics", "expected a mapping with keys type, address, interval, tls.insecureSkipVerify")
	}
	var typeNode, addressNode *yaml.Node
	var given []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		where := "metrics." + key.Value
		if val.Kind != yaml.ScalarNode {
			return m, p.errorf(val, where, "expected a single value: the section's keys are flat, as Volcano reads them (write tls.insecureSkipVerify: true, not tls: {insecureSkipVerify: true})")
		}
		if val.Tag == "!!null" {
			continue
		}
		switch key.Value {
		case metricsType:
			typeNode = val
			m.Type = val.Value
		case metricsAddress:
			m.Address, addressNode = val.Value, val
			given = append(given, key)
		case metricsInterval:
			d, err := time.ParseDuration(val.Value)
			if err != nil || d < 0 {
				return m, p.errorf(val, where, "expected a duration of at least 0 such as 30s, got %q", val.Value)
			}
			if d > 0 {
				m.Interval = d
			}
			given = append(given, key)
		case metricsInsecure:
			b, ok := yaml11Bool(val.Value)
			if !ok {
				return m, p.errorf(val, where, "expected true or false, got %q", val.Value)
			}
			m.InsecureSkipVerify = b
			given = append(given, key)
		default:
			for _, k := range elasticsearchKeys {
				if key.Value == k {
					return m, p.errorf(key, where, "read by Volcano's elasticsearch source, which Caldera does not implement")
				}
			}
			return m, p.errorf(key, where, "unknown key: expected type, address, interval or tls.insecureSkipVerify")
		}
	}
	switch m.Type {
	case "":
		if len(given) > 0 {
			return m, p.errorf(given[0], "metrics."+given[0].Value, "given without metrics.type, which Volcano then measures nothing with: set type: %s or %s, or remove the section", MetricsPrometheus, MetricsPrometheusAdaptor)
		}
	case MetricsPrometheus:
		u, err := url.Parse(m.Address)
		if m.Address == "" {
			return m, p.errorf(typeNode, "metrics.address", "required with type %s: the Prometheus server's URL, such as http://prometheus.monitoring:9090", MetricsPrometheus)
		}
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return m, p.errorf(addressNode, "metrics.address", "expected an http or https URL such as http://prometheus.monitoring:9090, got %q", m.Address)
		}
	case MetricsPrometheusAdaptor:
		if m.Address != "" {
			return m, p.errorf(addressNode, "metrics.address", "not used with type %s, which asks the Kubernetes API server's custom metrics API: remove it", MetricsPrometheusAdaptor)
		}
	case "elasticsearch":
		return m, p.errorf(typeNode, "metrics.type", "Volcano's elasticsearch source is not implemented in Caldera: use %s or %s", MetricsPrometheus, MetricsPrometheusAdaptor)
	default:
		return m, p.errorf(typeNode, "metrics.type", "expected %s or %s, got %q", MetricsPrometheus, MetricsPrometheusAdaptor, m.Type)
	}
	return m, nil
}

// yaml11Bool reads the words YAML 1.1 takes as booleans, quoted or not:
// Volcano's documentation writes tls.insecureSkipVerify: "false".
func yaml11Bool(s string) (value, ok bool) {
	switch strings.ToLower(s) {
	case "y", "yes", "on", "true":
		return true, true
	case "n", "no", "off", "false":
		return false, true
	}
	return false, false
}
