package conf

import (
	"strings"
	"testing"
	"time"
)

// The metrics section: Volcano's keys and defaults, as the configurations
// of Volcano's usage-based scheduling design document write them.
func TestMetricsSection(t *testing.T) {
	for name, tc := range map[string]struct {
		section string
		want    Metrics
	}{
		"absent":            {"", Metrics{Interval: DefaultMetricsInterval}},
		"null":              {"metrics:\n", Metrics{Interval: DefaultMetricsInterval}},
		"empty":             {"metrics: {}\n", Metrics{Interval: DefaultMetricsInterval}},
		"only a null value": {"metrics:\n  interval:\n", Metrics{Interval: DefaultMetricsInterval}},
		"prometheus": {"metrics:\n  type: prometheus\n  address: http://192.168.0.10:9090\n  interval: 30s\n",
			Metrics{Type: MetricsPrometheus, Address: "http://192.168.0.10:9090", Interval: 30 * time.Second}},
		"prometheus with tls": {"metrics:\n  type: prometheus\n  address: https://prom.example:9090/prefix\n  interval: 1m\n  tls.insecureSkipVerify: \"true\"\n",
			Metrics{Type: MetricsPrometheus, Address: "https://prom.example:9090/prefix", Interval: time.Minute, InsecureSkipVerify: true}},
		"yaml 1.1 boolean": {"metrics:\n  type: prometheus\n  address: http://p:9090\n  tls.insecureSkipVerify: yes\n",
			Metrics{Type: MetricsPrometheus, Address: "http://p:9090", Interval: DefaultMetricsInterval, InsecureSkipVerify: true}},
		"interval 0 is the default, as in Volcano": {"metrics:\n  type: prometheus_adaptor\n  interval: 0s\n",
			Metrics{Type: MetricsPrometheusAdaptor, Interval: DefaultMetricsInterval}},
	} {
		t.Run(name, func(t *testing.T) {
			cfg, err := Parse([]byte("actions: allocate\n"+tc.section), "f.yaml", fakeValidator{})
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Metrics != tc.want {
				t.Errorf("metrics = %+v, want %+v", cfg.Metrics, tc.want)
			}
		})
	}
}

func TestMetricsSectionErrors(t *testing.T) {
	for name, tc := range map[string]struct{ section, want string }{
		"not a mapping":           {"metrics: prometheus\n", "f.yaml:2: metrics: expected a mapping"},
		"unknown key":             {"metrics:\n  type: prometheus\n  adress: http://p:9090\n", "f.yaml:4: metrics.adress: unknown key: expected type, address, interval or tls.insecureSkipVerify"},
		"nested tls":              {"metrics:\n  type: prometheus\n  address: http://p:9090\n  tls:\n    insecureSkipVerify: \"false\"\n", "f.yaml:6: metrics.tls: expected a single value: the section's keys are flat"},
		"elasticsearch":           {"metrics:\n  type: elasticsearch\n  address: http://es:9200\n", "f.yaml:3: metrics.type: Volcano's elasticsearch source is not implemented in Caldera"},
		"elasticsearch key":       {"metrics:\n  type: prometheus\n  address: http://p:9090\n  elasticsearch.index: x\n", "f.yaml:5: metrics.elasticsearch.index: read by Volcano's elasticsearch source, which Caldera does not implement"},
		"unknown type":            {"metrics:\n  type: prometheus_adapt\n", `f.yaml:3: metrics.type: expected prometheus or prometheus_adaptor, got "prometheus_adapt"`},
		"no address":              {"metrics:\n  type: prometheus\n", "f.yaml:3: metrics.address: required with type prometheus"},
		"address not a URL":       {"metrics:\n  type: prometheus\n  address: 192.168.0.10:9090\n", `f.yaml:4: metrics.address: expected an http or https URL such as http://prometheus.monitoring:9090, got "192.168.0.10:9090"`},
		"address for the adaptor": {"metrics:\n  type: prometheus_adaptor\n  address: http://p:9090\n", "f.yaml:4: metrics.address: not used with type prometheus_adaptor"},
		"no type":                 {"metrics:\n  address: http://p:9090\n  interval: 30s\n", "f.yaml:3: metrics.address: given without metrics.type"},
		"bad interval":            {"metrics:\n  type: prometheus_adaptor\n  interval: 30\n", `f.yaml:4: metrics.interval: expected a duration of at least 0 such as 30s, got "30"`},
		"negative interval":       {"metrics:\n  type: prometheus_adaptor\n  interval: -1s\n", `metrics.interval: expected a duration of at least 0`},
		"bad boolean":             {"metrics:\n  type: prometheus_adaptor\n  tls.insecureSkipVerify: maybe\n", `f.yaml:4: metrics.tls.insecureSkipVerify: expected true or false, got "maybe"`},
		"key twice":               {"metrics:\n  type: prometheus_adaptor\n  type: prometheus\n", "f.yaml:4: metrics.type: given twice"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte("actions: allocate\n"+tc.section), "f.yaml", fakeValidator{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}
