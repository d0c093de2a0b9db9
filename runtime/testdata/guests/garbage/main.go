// Command garbage is a test module built with the Go SDK whose heap stays
// bounded only if the Go runtime's collector finishes its cycles. It keeps
// a live set of small linked objects across sessions and, in every
// job_order_keys call, builds and drops more of them:
//
//	garbage.liveKiB:    the live set (default 8192)
//	garbage.perCallKiB: what each call allocates and drops (default 64)
//
// It is not hostile: a real policy that allocates per call is the same.
package main

import caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"

func main() {}

func init() { caldera.Register(&garbage{}) }

// node is 64 bytes holding a pointer, so the collector must trace it.
type node struct {
	next    *node
	payload [56]byte
}

type garbage struct {
	live    *node
	perCall int
	dropped *node
}

func (*garbage) Name() string { return "garbage" }

func (g *garbage) OnSessionOpen(s *caldera.Session) error {
	liveKiB, err := s.Int("garbage.liveKiB", 8192)
	if err != nil {
		return err
	}
	perCallKiB, err := s.Int("garbage.perCallKiB", 64)
	if err != nil {
		return err
	}
	g.perCall = int(perCallKiB) << 10 / 64
	if g.live == nil {
		g.live = chain(int(liveKiB) << 10 / 64)
	}
	return nil
}

// JobOrderKey allocates perCallKiB of linked objects; the previous call's
// become garbage.
func (g *garbage) JobOrderKey(_ *caldera.Session, j *caldera.Job) caldera.Key {
	g.dropped = chain(g.perCall)
	return caldera.Key{float64(j.Handle)}
}

func chain(n int) *node {
	var head *node
	for range n {
		head = &node{next: head}
	}
	return head
}
