// Package nodeusage measures the load of nodes for the usage plugin: the
// CPU and memory in use, in percent, averaged over the last ten minutes
// (api.UsagePeriod), from the source the scheduler configuration's
// metrics section names, every interval (30s); the cache hands each
// measure to the sessions as NodeInfo.Usage.
//
// It follows Volcano v1.15's metrics sources and their refresh by the
// scheduler cache (volcano-sh/volcano@8fc394c11e8d (v1.15.0),
// pkg/scheduler/metrics/source and pkg/scheduler/cache GetMetricsData):
//
//   - prometheus: two instant queries per node to the server's
//     /api/v1/query, Volcano's PromQL with the node's name as the
//     instance label (node-exporter's node_cpu_seconds_total, and
//     node_memory_MemAvailable_bytes over node_memory_MemTotal_bytes,
//     averaged over 10m at a 30s resolution); the first series of each
//     answer is the value. tls.insecureSkipVerify turns off the
//     certificate check.
//   - prometheus_adaptor: the custom metrics API of the API server
//     (custom.metrics.k8s.io, at the version it prefers), the metrics
//     node_cpu_usage_avg and node_memory_usage_avg of every node, ratios
//     taken as percentages; the older timestamp of the two is the
//     measure's time.
//
// Volcano's elasticsearch source is not implemented; the configuration
// loader refuses it.
//
// Where Caldera differs: Volcano records a query that fails, or a vector
// without a sample, as 0% measured now, so that a node Prometheus cannot
// see looks idle and is preferred; Caldera records nothing for that node,
// which keeps its last measure with the measure's time (the usage plugin
// ignores a measure five minutes old), logs each cause once until every
// node is measured again, and refuses NaN and infinite values. Volcano
// asks about one node after the other, with a new HTTP transport for each;
// Caldera asks about eight nodes at a time over kept-alive connections.
// Both bound a whole measure to 60 seconds.
package nodeusage
