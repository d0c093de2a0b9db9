package cache

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/metrics"
)

// Bind records the decision at once (the task holds the node's resources
// from now on) and sends the bind in the background. A failed bind is undone
// and the pod resynced from the API server.
func (c *Cache) Bind(task *api.TaskInfo, node string) error {
	c.mu.Lock()
	t, j := c.lookup(task)
	if t == nil {
		c.mu.Unlock()
		return fmt.Errorf("bind %s: the pod is no longer known", task.Key())
	}
	if t.Status != api.Pending {
		c.mu.Unlock()
		return fmt.Errorf("bind %s: the pod is %s, not pending", task.Key(), t.Status)
	}
	n, ok := c.nodes[node]
	if !ok {
		c.mu.Unlock()
		return fmt.Errorf("bind %s: node %s is no longer known", task.Key(), node)
	}
	anns, vols, claims := task.BindAnnotations, task.BindVolumes, task.BindClaims
	c.assumeVolumes(t.UID, vols)
	c.assumeClaims(t.UID, podRef{name: t.Pod.Name, uid: t.Pod.UID}, claims)
	if len(anns) > 0 {
		// The cache's pod carries them at once, so that the next session
		// sees what was decided (a GPU taken) before the API server says so.
		t.Pod = withAnnotations(t.Pod, anns)
	}
	j.UpdateTaskStatus(t, api.Binding)
	t.NodeName = node
	n.AddTask(t)
	c.assumed[t.UID] = node
	c.forgetPending(t.Key())
	pod := t.Pod
	c.mu.Unlock()

	metrics.ScheduleAttempts.WithLabelValues("scheduled").Inc()
	c.submit(func(ctx context.Context) {
		err := c.opts.Binder.Bind(ctx, BindRequest{Pod: pod, Node: node, Volumes: vols, Claims: claims, Annotations: anns})
		if err == nil {
			if c.opts.Recorder != nil {
				c.opts.Recorder.Eventf(pod, v1.EventTypeNormal, "Scheduled", "Successfully assigned %s/%s to %s", pod.Namespace, pod.Name, node)
			}
		} else {
			metrics.BindFailures.Inc()
			logErr(err, "bind failed; will resync the pod", "pod", task.Key(), "node", node)
			if c.opts.Recorder != nil {
				// The pod's only trace otherwise: it is pending again, with
				// no Unschedulable condition (it was schedulable).
				c.opts.Recorder.Eventf(pod, v1.EventTypeWarning, "FailedScheduling", "failed to bind to node %s: %v", node, err)
			}
			c.undoAssumption(t.UID)
			c.forgetVolumes(t.UID, vols)
			c.forgetClaims(t.UID, claims)
			c.resync.AddRateLimited(types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name})
		}
	})
	return nil
}

// Evict records that the task is releasing and sends the eviction in the
// background; a failure is undone and the pod resynced.
func (c *Cache) Evict(task *api.TaskInfo, reason string) error {
	c.mu.Lock()
	t, j := c.lookup(task)
	if t == nil {
		c.mu.Unlock()
		return fmt.Errorf("evict %s: the pod is no longer known", task.Key())
	}
	j.UpdateTaskStatus(t, api.Releasing)
	if n, ok := c.nodes[t.NodeName]; ok {
		n.UpdateTask(t)
	}
	c.releasing[t.UID] = true
	pod := t.Pod
	var pg *v1beta1.PodGroup
	if !c.synthetic[j.UID] {
		pg = j.PodGroup
	}
	c.mu.Unlock()
	metrics.PreemptionVictims.WithLabelValues(reason).Inc()
	// As Volcano's scheduler tells an eviction: on the pod, and on its
	// PodGroup.
	if c.opts.Recorder != nil {
		c.opts.Recorder.Event(pod, v1.EventTypeWarning, "Evict", EvictMessage(reason))
		if pg != nil {
			c.opts.Recorder.Event(pg, v1.EventTypeNormal, "Evict", reason)
		}
	}

	c.submit(func(ctx context.Context) {
		if err := c.opts.Evictor.Evict(ctx, pod, reason); err != nil {
			logErr(err, "evict failed; will resync the pod", "pod", task.Key())
			c.mu.Lock()
			delete(c.releasing, t.UID)
			c.mu.Unlock()
			c.resync.AddRateLimited(types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name})
		}
	})
	return nil
}

// withAnnotations returns a copy of pod with anns added.
func withAnnotations(pod *v1.Pod, anns map[string]string) *v1.Pod {
	p := pod.DeepCopy()
	if p.Annotations == nil {
		p.Annotations = make(map[string]string, len(anns))
	}
	for k, v := range anns {
		p.Annotations[k] = v
	}
	return p
}

// lookup finds the cache's own record of a session's task. Callers hold mu.
func (c *Cache) lookup(task *api.TaskInfo) (*api.TaskInfo, *api.JobInfo) {
	j, ok := c.jobs[task.Job]
	if !ok {
		return nil, nil
	}
	t, ok := j.Tasks[task.UID]
	if !ok {
		return nil, nil
	}
	return t, j
}

// undoAssumption returns a task whose bind failed to pending.
func (c *Cache) undoAssumption(id api.TaskID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	node := c.assumed[id]
	delete(c.assumed, id)
	if n, ok := c.nodes[node]; ok {
		if t, ok := n.Tasks[id]; ok {
			n.RemoveTask(t)
			if j, ok := c.jobs[t.Job]; ok {
				j.UpdateTaskStatus(t, api.Pending)
			}
			t.NodeName = ""
		}
	}
}

// resyncLoop re-reads pods whose bind or eviction failed and replaces the
// cache's record with what the API server says now.
func (c *Cache) resyncLoop(ctx context.Context) {
	for {
		key, shutdown := c.resync.Get()
		if shutdown {
			return
		}
		err := c.resyncPod(ctx, key)
		if err != nil {
			logErr(err, "resync failed; will retry", "pod", key.String())
			c.resync.AddRateLimited(key)
		} else {
			c.resync.Forget(key)
		}
		c.resync.Done(key)
	}
}

func (c *Cache) resyncPod(ctx context.Context, key types.NamespacedName) error {
	pod, err := c.opts.Client.CoreV1().Pods(key.Namespace).Get(ctx, key.Name, metav1.GetOptions{})
	c.mu.Lock()
	defer c.mu.Unlock()
	if apierrors.IsNotFound(err) {
		for _, j := range c.jobs {
			for _, t := range j.Tasks {
				if t.Namespace == key.Namespace && t.Name == key.Name {
					c.removePod(t.Pod, true)
					return nil
				}
			}
		}
		return nil
	}
	if err != nil {
		return err
	}
	id := api.TaskID(pod.UID)
	if _, ok := c.assumed[id]; ok || c.releasing[id] {
		// A later session has sent a new bind or eviction since the one that
		// failed; its own outcome updates the pod. Replacing the record now
		// would make the pod look pending while that bind is in flight, and
		// the next session would bind it again.
		return nil
	}
	c.removePod(pod, false)
	delete(c.assumed, api.TaskID(pod.UID))
	delete(c.releasing, api.TaskID(pod.UID))
	c.addPod(pod)
	return nil
}

// UpdateJobStatus writes a job's PodGroup status when it changed (for a
// synthetic PodGroup, into the cache only) and records why its pending pods
// are pending.
func (c *Cache) UpdateJobStatus(job *api.JobInfo, podGroupChanged bool) {
	c.mu.Lock()
	cj, known := c.jobs[job.UID]
	synthetic := c.synthetic[job.UID]
	if known {
		// As Volcano keeps it in its cache: the hypernode a job was placed
		// in is not written anywhere, and after a restart it is worked out
		// again from the nodes the job's tasks run on.
		cj.AllocatedHyperNode = job.AllocatedHyperNode
		for id, sj := range job.SubJobs {
			if c := cj.SubJobs[id]; c != nil {
				c.AllocatedHyperNode = sj.AllocatedHyperNode
			}
		}
	}
	var before, assumed *v1beta1.PodGroup
	if known && cj.PodGroup != nil && podGroupChanged {
		// The next session must see the new phase even before the informer
		// reports the write back.
		before = cj.PodGroup
		assumed = cj.PodGroup.DeepCopy()
		assumed.Status = *job.PodGroup.Status.DeepCopy()
		cj.PodGroup = assumed
	}
	type pending struct {
		task *api.TaskInfo
		pp   PodPending
		sent string
	}
	var write, shown []pending
	pendingTasks := len(job.TaskStatusIndex[api.Pending])
	// Pending, pipelined and allocated pods (of a job that is pipelined but
	// not ready, whose statement was kept and not committed) are told why
	// they are not bound, as Volcano's RecordJobStatusEvent does; a
	// pipelined preemptor is nominated to the node its victims are leaving.
	var base string
	for _, status := range []api.TaskStatus{api.Allocated, api.Pending, api.Pipelined} {
		for _, t := range job.TaskStatusIndex[status] {
			reason, msg, nominated := job.TaskCondition(t.UID, &base)
			key, pp := t.Key(), PodPending{Reason: reason, Message: msg, NominatedNode: nominated}
			if nominated != "" && known {
				c.assumeNomination(cj, t.UID, nominated)
			}
			sent := reason + "\n" + msg + "\n" + nominated
			if status != api.Pipelined {
				c.pendingReasons[key] = msg
			}
			switch {
			case saysPending(t.Pod, pp):
				// Shown: a later change is written again, and a write
				// queued for an older one must not land.
				delete(c.conditionsSent, key)
				shown = append(shown, pending{t, pp, sent})
			case c.conditionsSent[key] == sent:
				// Queued or sent, not yet seen by the informer.
			default:
				c.conditionsSent[key] = sent
				write = append(write, pending{t, pp, sent})
			}
		}
	}
	for _, t := range job.Tasks {
		switch t.Status {
		case api.Pending, api.Allocated:
		case api.Pipelined:
			delete(c.pendingReasons, t.Key())
		default:
			c.forgetPending(t.Key())
		}
	}
	c.mu.Unlock()
	metrics.ScheduleAttempts.WithLabelValues("unschedulable").Add(float64(pendingTasks))

	if podGroupChanged && !synthetic {
		pg := job.PodGroup.DeepCopy() // the session's copy is not ours to keep
		uid, key := job.UID, job.Key()
		c.writeStatus("podgroup/"+key, func(ctx context.Context) {
			err := c.opts.StatusUpdater.UpdatePodGroupStatus(ctx, pg)
			if err == nil || apierrors.IsNotFound(err) {
				return
			}
			// The cache assumed the write; the API server does not have
			// it. Back to what it has, so that the next session, finding
			// the status still to change, writes it again: a Volcano Job
			// whose PodGroup never leaves Pending never gets its pods.
			c.mu.Lock()
			if cj := c.jobs[uid]; cj != nil && assumed != nil && cj.PodGroup == assumed {
				cj.PodGroup = before
			}
			c.mu.Unlock()
			logErr(err, "updating PodGroup status; the next session writes it again", "podgroup", key)
		})
	}
	if !synthetic {
		c.recordJobStatusEvent(job, podGroupChanged)
	}
	for _, p := range shown {
		c.dropStatusWrite("pod/" + p.task.Key())
	}
	for _, p := range write {
		if c.opts.Recorder != nil {
			c.opts.Recorder.Event(p.task.Pod, v1.EventTypeWarning, "FailedScheduling", p.pp.Message)
		}
		pod, pp, sent, key := p.task.Pod, p.pp, p.sent, p.task.Key()
		c.writeStatus("pod/"+key, func(ctx context.Context) {
			err := c.opts.StatusUpdater.UpdatePodPending(ctx, pod, pp)
			if err == nil {
				return
			}
			c.mu.Lock()
			if c.conditionsSent[key] == sent {
				delete(c.conditionsSent, key) // the next session tries again
			}
			c.mu.Unlock()
			if !apierrors.IsNotFound(err) {
				logErr(err, "updating pod condition", "pod", key)
			}
		})
	}
}

// assumeNomination records a pod's nominated node in the cache before the
// write reaches the API server, as UpdateJobStatus assumes a PodGroup's
// phase: the next session tries that node first whether or not the
// informer has reported the write back, so that its decisions do not
// depend on that race. The informer's copy replaces it when it comes.
// Callers hold mu.
func (c *Cache) assumeNomination(job *api.JobInfo, id api.TaskID, node string) {
	t := job.Tasks[id]
	if t == nil || t.Pod == nil || t.Pod.Status.NominatedNodeName == node {
		return
	}
	pod := t.Pod.DeepCopy()
	pod.Status.NominatedNodeName = node
	t.Pod = pod
}

// forgetPending drops what the cache holds about a pod as pending: bound,
// no longer pending or deleted. A condition write still queued for it
// would fail against the pod as it is now, so it is dropped too. Callers
// hold mu (statusWrites.mu is taken after it, never before).
func (c *Cache) forgetPending(key string) {
	delete(c.pendingReasons, key)
	delete(c.conditionsSent, key)
	c.dropStatusWrite("pod/" + key)
}

// recordJobStatusEvent tells, as Volcano's scheduler does at the end of
// every session, why a gang is not scheduled: a Warning Unschedulable Event
// on each PodGroup still Pending or Inqueue, "<pending>/<tasks> tasks in gang
// unschedulable: <fit error>", repeated each session (the Event recorder
// counts repeats into one Event); else, when the status changed, a Normal
// Scheduled Event "pod group is ready".
func (c *Cache) recordJobStatusEvent(job *api.JobInfo, podGroupChanged bool) {
	if c.opts.Recorder == nil || job.PodGroup == nil {
		return
	}
	switch job.PodGroup.Status.Phase {
	case "", v1beta1.PodGroupUnknown, v1beta1.PodGroupPending, v1beta1.PodGroupInqueue:
		msg := fmt.Sprintf("%d/%d tasks in gang unschedulable: %s", len(job.TaskStatusIndex[api.Pending]), len(job.Tasks), job.FitError())
		c.opts.Recorder.Event(job.PodGroup, v1.EventTypeWarning, string(v1beta1.PodGroupUnschedulableType), msg)
	default:
		if podGroupChanged {
			c.opts.Recorder.Event(job.PodGroup, v1.EventTypeNormal, string(v1beta1.PodGroupScheduled), api.PodGroupReady)
		}
	}
}

// RecordPodGroupEvent publishes a plugin's Event about a PodGroup
// (framework.PodGroupEventRecorder); none about a PodGroup made up in the
// cache, which the API server does not have.
func (c *Cache) RecordPodGroupEvent(pg *v1beta1.PodGroup, eventType, reason, message string) {
	if c.opts.Recorder == nil || c.IsSynthetic(api.JobID(pg.Namespace+"/"+pg.Name)) {
		return
	}
	c.opts.Recorder.Event(pg, eventType, reason, message)
}

// UpdateQueueStatus records a queue's new status in the cache at once (the
// next session compares against it, so an unchanged queue is not written
// again before the informer reports the write) and writes it through the
// status subresource, which the Queue CRD has, on the bind workers like
// PodGroup status: a hung request must not hold up the session. A write
// that fails puts the cache back to the queue the API server has, so that
// the next session writes it again.
func (c *Cache) UpdateQueueStatus(q *v1beta1.Queue) {
	c.mu.Lock()
	var before *v1beta1.Queue
	if qi, ok := c.queues[api.QueueID(q.Name)]; ok {
		before = qi.Queue
		qi.Queue = q
	}
	c.mu.Unlock()
	c.writeStatus("queue/"+q.Name, func(ctx context.Context) {
		_, err := c.opts.VCClient.SchedulingV1beta1().Queues().UpdateStatus(ctx, q, metav1.UpdateOptions{})
		if err == nil || apierrors.IsNotFound(err) {
			return
		}
		c.mu.Lock()
		if qi, ok := c.queues[api.QueueID(q.Name)]; ok && before != nil && qi.Queue == q {
			qi.Queue = before
		}
		c.mu.Unlock()
		logErr(err, "updating Queue status; the next session writes it again", "queue", q.Name)
	})
}
