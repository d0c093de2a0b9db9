package harness

import "time"

// Usage is what the kernel has accounted to one process (see ReadUsage).
type Usage struct {
	CPU     time.Duration // user and system time since the process started
	RSS     int64         // resident memory now, in bytes
	PeakRSS int64         // highest resident memory so far, in bytes
}

// Pids returns the process ids of etcd, kube-apiserver (the current one,
// after restarts) and kwok, to read their Usage.
func (c *Cluster) Pids() (etcd, apiserver, kwok int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.etcd.pid(), c.apiserver.pid(), c.kwok.pid()
}
