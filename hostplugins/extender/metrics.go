package extender

import (
	"errors"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/klog/v2"
)

// The extender's metrics, named like scheduler/metrics (caldera_ prefix,
// latency in microseconds). The label "call" holds the Volcano name of the
// call (predicate, prioritize, ...), never the configured verb or URL, so
// that the series stay few whatever the configuration says.
var (
	requestLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: "caldera", Subsystem: "extender", Name: "request_latency_microseconds",
		Help: "Time of one HTTP call to the extender, from encoding the request to decoding the answer, failed calls included",
		// 50 µs to about 6.5 s: loopback calls through timed-out ones.
		Buckets: prometheus.ExponentialBuckets(50, 2, 18),
	}, []string{"call"})
	requestFailures = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "caldera", Subsystem: "extender", Name: "request_failures_total",
		Help: "Failed calls to the extender, by call and cause (timeout, transport, status, decode, answer)",
	}, []string{"call", "cause"})
)

// Collectors returns the extender's metrics, for a registry other than
// prometheus's default one (caldera run serves its own).
func Collectors() []prometheus.Collector {
	return []prometheus.Collector{requestLatency, requestFailures}
}

var registerOnce sync.Once

// registerDefault adds the metrics to prometheus's default registerer the
// first time a factory is made, rather than at package init, so that merely
// importing the package changes nothing.
func registerDefault() {
	registerOnce.Do(func() {
		for _, c := range Collectors() {
			var already prometheus.AlreadyRegisteredError
			if err := prometheus.DefaultRegisterer.Register(c); err != nil && !errors.As(err, &already) {
				klog.ErrorS(err, "Registering the extender's metrics")
			}
		}
	})
}

// observe records one call's latency and, if it failed, its cause.
func observe(call Call, start time.Time, err error) {
	requestLatency.WithLabelValues(call.String()).Observe(float64(time.Since(start).Nanoseconds()) / 1e3)
	if err != nil {
		countFailure(call, err)
	}
}

func countFailure(call Call, err error) {
	cause := CauseTransport
	var ce *CallError
	if errors.As(err, &ce) {
		cause = ce.Cause
	}
	requestFailures.WithLabelValues(call.String(), string(cause)).Inc()
}
