package main

import (
	"context"
	"os"
	"sync"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	"github.com/caldera-scheduler/caldera/runtime/reload"
)

// Reasons of the Events recording reloads.
const (
	reasonReloaded     = "PolicyReloaded"
	reasonReloadFailed = "PolicyReloadFailed"
)

// maxEventMessage keeps a reload's Event within what `kubectl describe`
// shows comfortably (events.k8s.io caps notes at 1 kB).
const maxEventMessage = 1024

// reloadEvents records reload outcomes as Events on the scheduler's own
// Pod: each replica reloads on its own, so each reports on itself, and
// `kubectl describe pod` on a replica shows what it is running. The Pod is
// named by POD_NAME and POD_NAMESPACE, which deploy/caldera.yaml sets from
// the downward API. Reloads that happen before the API client is ready,
// or without those variables, are logged and counted only.
type reloadEvents struct {
	mu       sync.Mutex
	recorder record.EventRecorder
	pod      *v1.ObjectReference
}

// attach starts recording on the Pod the environment names, if any.
func (e *reloadEvents) attach(ctx context.Context, kube kubernetes.Interface, recorder record.EventRecorder) {
	name, ns := os.Getenv("POD_NAME"), os.Getenv("POD_NAMESPACE")
	if name == "" || ns == "" {
		klog.InfoS("Reloads are not recorded as Events: POD_NAME and POD_NAMESPACE are not set")
		return
	}
	ref := &v1.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: ns, Name: name}
	// kubectl describe matches Events by the Pod's UID as well.
	if pod, err := kube.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{}); err == nil {
		ref.UID = pod.UID
	} else {
		klog.V(1).InfoS("Reload Events will carry no Pod UID", "pod", ns+"/"+name, "err", err)
	}
	e.mu.Lock()
	e.recorder, e.pod = recorder, ref
	e.mu.Unlock()
}

func (e *reloadEvents) report(out reload.Outcome) {
	e.mu.Lock()
	recorder, pod := e.recorder, e.pod
	e.mu.Unlock()
	if recorder == nil {
		return
	}
	msg := out.String()
	if len(msg) > maxEventMessage {
		msg = msg[:maxEventMessage-3] + "..."
	}
	if out.Err != nil {
		recorder.Event(pod, v1.EventTypeWarning, reasonReloadFailed, msg)
		return
	}
	recorder.Event(pod, v1.EventTypeNormal, reasonReloaded, msg)
}
