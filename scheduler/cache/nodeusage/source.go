package nodeusage

import (
	"context"
	"fmt"
	"time"

	"k8s.io/client-go/rest"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/conf"
)

// Source measures the usage of nodes.
type Source interface {
	// Measure returns the usage of each of the named nodes it could
	// measure, and why it could not measure the others.
	Measure(ctx context.Context, nodes []string) (map[string]*api.NodeUsage, []Failure)
}

// Failure says why a node could not be measured. Err does not name the
// node, so that the failures of one cause read alike.
type Failure struct {
	Node string
	Err  error
}

// New returns the source the metrics section describes; restConfig reaches
// the API server (prometheus_adaptor), nil where there is none.
func New(m conf.Metrics, restConfig *rest.Config) (Source, error) {
	switch m.Type {
	case conf.MetricsPrometheus:
		return NewPrometheus(m.Address, m.InsecureSkipVerify)
	case conf.MetricsPrometheusAdaptor:
		if restConfig == nil {
			return nil, fmt.Errorf("metrics type %s asks the API server's custom metrics API, and there is no API server here", m.Type)
		}
		return NewCustomMetrics(restConfig)
	}
	return nil, fmt.Errorf("metrics type %q is not implemented", m.Type)
}

// measureTimeout bounds one measure of every node, as Volcano bounds it.
const measureTimeout = 60 * time.Second
