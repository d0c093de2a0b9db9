package nodeusage

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/conf"
)

// Store is where measures go: the scheduler cache.
type Store interface {
	// NodeNames lists the nodes to measure.
	NodeNames() []string
	// SetNodeUsage records measures by node; nodes left out keep theirs.
	SetNodeUsage(map[string]*api.NodeUsage)
}

// Run measures the store's nodes every interval until ctx is done, the
// first time at once. settings is read before each measure, so that a
// reloaded configuration (a new source, address or interval) takes effect
// from the next one; with no metrics type nothing is measured, and what
// was measured before ages out. A node that cannot be measured keeps its
// last measure, with its time, so that the usage plugin stops trusting it
// five minutes on. Failures are logged once per cause until every node is
// measured again.
func Run(ctx context.Context, settings func() conf.Metrics, store Store, restConfig *rest.Config) {
	r := &refresher{store: store, restConfig: restConfig, logged: map[string]bool{}}
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		m := settings()
		r.refresh(ctx, m)
		interval := m.Interval
		if interval <= 0 {
			interval = conf.DefaultMetricsInterval
		}
		timer.Reset(interval)
	}
}

// redacted hides the password of an address that carries one
// (http://user:password@host), as net/http hides it in its errors.
func redacted(address string) string {
	if u, err := url.Parse(address); err == nil {
		return u.Redacted()
	}
	return address
}

// maxCausesLogged bounds the failure causes logged in one measure.
const maxCausesLogged = 5

type refresher struct {
	store      Store
	restConfig *rest.Config
	// settings are those source was made from.
	settings conf.Metrics
	source   Source
	// logged holds the failure causes logged since every node was last
	// measured.
	logged map[string]bool
}

func (r *refresher) refresh(ctx context.Context, m conf.Metrics) {
	if m.Type == "" {
		if r.source != nil {
			klog.InfoS("Node usage is no longer measured: the configuration has no metrics section")
		}
		r.source, r.settings = nil, m
		return
	}
	if r.source == nil || m != r.settings {
		r.settings = m
		src, err := New(m, r.restConfig)
		if err != nil {
			r.source = nil
			r.fail("", fmt.Sprintf("metrics source %s: %v", m.Type, err), 0)
			return
		}
		r.source = src
		klog.InfoS("Measuring node usage", "type", m.Type, "address", redacted(m.Address), "interval", m.Interval)
	}
	measureCtx, cancel := context.WithTimeout(ctx, measureTimeout)
	defer cancel()
	nodes := r.store.NodeNames()
	got, failures := r.source.Measure(measureCtx, nodes)
	if ctx.Err() != nil {
		return // stopping: what failed, failed for that
	}
	if len(got) > 0 {
		r.store.SetNodeUsage(got)
	}
	klog.V(4).InfoS("Measured node usage", "type", m.Type, "nodes", len(nodes), "measured", len(got), "failed", len(failures))
	r.report(failures, len(nodes))
}

// report logs each cause of failure the first time it is seen since every
// node was last measured, with how many nodes it kept from being measured
// and one of them.
func (r *refresher) report(failures []Failure, nodes int) {
	if len(failures) == 0 {
		if len(r.logged) > 0 {
			klog.InfoS("Node usage is measured again for every node", "nodes", nodes)
			clear(r.logged)
		}
		return
	}
	type cause struct {
		msg   string
		count int
		node  string
	}
	byMsg := map[string]*cause{}
	for _, f := range failures {
		msg := f.Err.Error()
		if c, ok := byMsg[msg]; ok {
			c.count++
			continue
		}
		byMsg[msg] = &cause{msg: msg, count: 1, node: f.Node}
	}
	causes := make([]*cause, 0, len(byMsg))
	for _, c := range byMsg {
		causes = append(causes, c)
	}
	sort.Slice(causes, func(i, j int) bool {
		if causes[i].count != causes[j].count {
			return causes[i].count > causes[j].count
		}
		return causes[i].msg < causes[j].msg
	})
	logged := 0
	for _, c := range causes {
		if r.logged[c.msg] || logged == maxCausesLogged {
			klog.V(4).InfoS("Node usage not measured", "nodes", c.count, "example", c.node, "err", c.msg)
			continue
		}
		logged++
		r.fail(c.node, c.msg, c.count)
	}
}

// fail logs a cause once until every node is measured again.
func (r *refresher) fail(node, msg string, nodes int) {
	if r.logged[msg] {
		klog.V(4).InfoS("Node usage not measured", "err", msg)
		return
	}
	r.logged[msg] = true
	if node == "" {
		klog.ErrorS(nil, "Node usage is not measured; nodes keep their last measure, which the usage plugin ignores five minutes after it was taken", "err", msg)
		return
	}
	klog.ErrorS(nil, "Node usage could not be measured for some nodes; they keep their last measure, which the usage plugin ignores five minutes after it was taken",
		"err", msg, "nodes", nodes, "example", node)
}
