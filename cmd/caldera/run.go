package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"
	v1 "k8s.io/api/core/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	nodeinfov1alpha1 "volcano.sh/apis/pkg/apis/nodeinfo/v1alpha1"
	topologyv1alpha1 "volcano.sh/apis/pkg/apis/topology/v1alpha1"
	vcclient "volcano.sh/apis/pkg/client/clientset/versioned"
	vcscheme "volcano.sh/apis/pkg/client/clientset/versioned/scheme"

	"github.com/caldera-scheduler/caldera/scheduler"
	"github.com/caldera-scheduler/caldera/scheduler/actions"
	"github.com/caldera-scheduler/caldera/scheduler/cache"
	"github.com/caldera-scheduler/caldera/scheduler/cache/nodeusage"
	"github.com/caldera-scheduler/caldera/scheduler/conf"
)

// Defaults shared with Volcano's vc-scheduler where the flags overlap.
const (
	defaultSchedulePeriod = time.Second
	defaultQPS            = 2000.0
	defaultBurst          = 2000
	defaultListenAddress  = ":8080"
	defaultHealthzAddress = ":11251"
	defaultLockNamespace  = "volcano-system"
	// shutdownGrace bounds how long a stopping scheduler waits for binds
	// already sent.
	shutdownGrace = 30 * time.Second
)

func newRunCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Schedule a Kubernetes cluster",
		Long: `Connects to the API server (from --kubeconfig, or in-cluster), waits until
its informers have listed every object, and runs a scheduling session every
--schedule-period. Changes to --scheduler-conf and to the modules of
--plugin-dir are checked and put into service between two sessions, without
a restart; a broken change is refused and the running version stays.
SIGTERM or SIGINT finishes the running session, waits for the binds it sent,
releases the leader lease and exits.`,
		Args: shellRedirectOnly,
	}
	f := cmd.Flags()
	f.String("kubeconfig", "", "kubeconfig file (default: in-cluster configuration)")
	f.String("master", "", "API server address, overriding the kubeconfig's")
	f.StringSlice("scheduler-name", []string{cache.DefaultSchedulerName}, "schedulerName values this scheduler is responsible for (repeatable, or comma-separated)")
	f.Duration("schedule-period", defaultSchedulePeriod, "time between the end of one session and the start of the next")
	f.String("default-queue", cache.DefaultQueue, "queue for jobs that name none; created if missing")
	f.Float32("kube-api-qps", defaultQPS, "queries per second to the API server")
	f.Int("kube-api-burst", defaultBurst, "burst of queries to the API server")
	f.String("listen-address", defaultListenAddress, "address of the /metrics endpoint; empty disables it")
	f.String("healthz-address", defaultHealthzAddress, "address of the /healthz and /readyz endpoints; empty disables them")
	addPolicyFlags(f, true)
	addEventHandlerFlags(f)
	addLeaderElectionFlags(f)
	addVolcanoFlags(f)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if on, _ := cmd.Flags().GetBool("version"); on {
			fmt.Fprintln(cmd.OutOrStdout(), version())
			return nil
		}
		vo, err := checkVolcanoFlags(cmd.Flags())
		if err != nil {
			return err
		}
		return runScheduler(cmd.Context(), settings(cmd.Flags()), vo)
	}
	return cmd
}

func runScheduler(parent context.Context, v *viper.Viper, vo volcanoOptions) error {
	events := &reloadEvents{}
	policy, closePolicy, err := newReloader(parent, v, false, events.report)
	if err != nil {
		return err
	}
	defer closePolicy()
	if v.GetDuration("schedule-period") <= 0 {
		return fmt.Errorf("--schedule-period: expected a positive duration, got %s", v.GetDuration("schedule-period"))
	}
	le, err := readLeaderElection(v)
	if err != nil {
		return err
	}
	restConfig, err := restConfigFrom(v)
	if err != nil {
		return err
	}
	kube, err := kubernetes.NewForConfig(protobufConfig(restConfig))
	if err != nil {
		return fmt.Errorf("kubernetes client: %w", err)
	}
	vc, err := vcclient.NewForConfig(restConfig)
	if err != nil {
		return fmt.Errorf("volcano client: %w", err)
	}

	ctx, stop := signal.NotifyContext(parent, syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	health := newHealth()
	if err := serveEndpoints(ctx, endpointsFrom(v), health); err != nil {
		return err
	}

	broadcaster := record.NewBroadcaster(record.WithContext(ctx))
	defer broadcaster.Shutdown()
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: kube.CoreV1().Events("")})
	recorder := broadcaster.NewRecorder(eventScheme(), v1.EventSource{Component: eventComponent(schedulerNames(v))})
	events.attach(ctx, kube, recorder)
	if v.GetBool("watch") {
		// Standbys reload too, so that a takeover starts with the current
		// policy.
		stopWatch := watchPolicy(ctx, policy)
		defer stopWatch() // before the policy closes
	}

	handlers, err := newEventHandlers(ctx, v, policy.CompilationCache())
	if err != nil {
		return err
	}
	defer handlers.close()
	hyperNodes, numatopologies, devices := servesHyperNodes(vc), servesNumatopologies(vc), servesResourceClaims(vc)
	schedCache, err := cache.New(cache.Options{
		WithoutHyperNodes:     !hyperNodes,
		WithoutNumatopologies: !numatopologies,
		WithoutDRA:            !devices,
		Client:                kube,
		VCClient:              vc,
		SchedulerNames:        schedulerNames(v),
		DefaultQueue:          v.GetString("default-queue"),
		Recorder:              recorder,
		Registry:              handlers.registry,
		EventHandler:          handlers.name,
		EventHandlerConfig:    handlers.config,
		RestConfig:            restConfig,
		NodeSelector:          vo.nodeSelector,
		IgnorePriorityClasses: vo.ignorePriorityClasses,
		TrackStorageCapacity:  vo.trackStorageCapacity,
	})
	if err != nil {
		return err
	}
	// The cache's informers and workers outlive the scheduling loop: binds
	// sent by the last session must still complete after SIGTERM.
	cacheCtx, stopCache := context.WithCancel(context.Background())
	defer stopCache()
	if err := schedCache.Run(cacheCtx); err != nil {
		return err
	}
	klog.InfoS("Waiting for informers to sync")
	if !schedCache.WaitForCacheSync(ctx) {
		return fmt.Errorf("informers did not sync before shutdown")
	}
	health.setReady()
	klog.InfoS("Informers synced", "schedulerNames", schedulerNames(v), "actions", policy.Policies().Current().Config.Actions)
	// Node usage for the usage plugin, from the metrics section of the
	// configuration in service (standbys measure too, so that a takeover
	// starts with fresh measures).
	go nodeusage.Run(cacheCtx, func() conf.Metrics {
		if p := policy.Policies().Current(); p != nil {
			return p.Config.Metrics
		}
		return conf.Metrics{}
	}, schedCache, restConfig)

	sched := scheduler.NewWithPolicies(schedCache, actions.RegistryWith(vo.search), policy.Policies())
	// Stopping, the last session's binds, evictions and status writes are
	// sent before the Lease is released: a standby that took over earlier
	// would see those pods pending and their nodes' room free.
	schedule := func(loopCtx context.Context) {
		sched.Run(loopCtx, v.GetDuration("schedule-period"))
		if ctx.Err() != nil {
			flushDecisions(schedCache)
		}
	}
	if le.enabled {
		return runAsLeader(ctx, kube, le, schedule, func() {
			klog.InfoS("Lost the leader Lease: nothing more this replica decided is sent")
			schedCache.Fence()
		})
	}
	schedule(ctx)
	return nil
}

// flushDecisions waits, up to shutdownGrace, for the binds, evictions and
// status writes already queued.
func flushDecisions(c *cache.Cache) {
	klog.InfoS("Stopping: waiting for binds in flight")
	flushed := make(chan struct{})
	go func() { c.Flush(); close(flushed) }()
	select {
	case <-flushed:
	case <-time.After(shutdownGrace):
		klog.InfoS("Binds still in flight at exit; the next scheduler resyncs them", "waited", shutdownGrace)
	}
}

// restConfigFrom builds the API client configuration from --kubeconfig and
// --master, or from the in-cluster service account.
func restConfigFrom(v *viper.Viper) (*rest.Config, error) {
	var (
		c   *rest.Config
		err error
	)
	kubeconfig, master := v.GetString("kubeconfig"), v.GetString("master")
	if kubeconfig == "" && master == "" {
		c, err = rest.InClusterConfig()
		if err != nil {
			return nil, fmt.Errorf("no --kubeconfig given and not running in a cluster: %w", err)
		}
	} else if c, err = clientcmd.BuildConfigFromFlags(master, kubeconfig); err != nil {
		return nil, fmt.Errorf("--kubeconfig %s: %w", kubeconfig, err)
	}
	c.QPS = float32(v.GetFloat64("kube-api-qps"))
	c.Burst = v.GetInt("kube-api-burst")
	c.UserAgent = "caldera"
	return c, nil
}

// protobufConfig is the configuration of the client of Kubernetes' own
// types: protobuf on the wire, as kube-scheduler's, which the API server
// encodes and the informers decode for a fraction of JSON's cost (JSON
// still accepted from a server that does not answer in protobuf). Volcano's
// types are custom resources, served in JSON only, and keep the plain
// configuration, as do the dynamic informers.
func protobufConfig(c *rest.Config) *rest.Config {
	pc := rest.CopyConfig(c)
	pc.ContentType = runtime.ContentTypeProtobuf
	pc.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	return pc
}

// eventScheme knows core and Volcano types, so that Events can refer to
// PodGroups.
func eventScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilRuntimeMust(clientgoscheme.AddToScheme(s))
	utilRuntimeMust(vcscheme.AddToScheme(s))
	return s
}

func utilRuntimeMust(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// servesHyperNodes asks the API server whether it serves Volcano's
// HyperNode CRD. Without it the scheduler does not watch HyperNodes (an
// informer on a resource that is not served never syncs) and says so:
// jobs with a network topology are then placed anywhere in the cluster,
// as in Volcano with no HyperNodes.
func servesHyperNodes(vc vcclient.Interface) bool {
	gv := topologyv1alpha1.SchemeGroupVersion.String()
	ok, err := serves(vc, gv, "hypernodes")
	if !ok {
		klog.InfoS("The API server serves no HyperNodes, so the network topology has only the cluster top; install Volcano's HyperNode CRD to use network topologies", "groupVersion", gv, "err", err)
	}
	return ok
}

// servesNumatopologies asks the API server whether it serves Volcano's
// Numatopology CRD, and says so when it does not: no node then has NUMA
// information, and the numa-aware plugin keeps pods that ask for a
// topology policy pending.
func servesNumatopologies(vc vcclient.Interface) bool {
	gv := nodeinfov1alpha1.SchemeGroupVersion.String()
	ok, err := serves(vc, gv, "numatopologies")
	if !ok {
		klog.InfoS("The API server serves no Numatopologies, so no node has NUMA information; install Volcano's Numatopology CRD and its resource exporter to use the numa-aware plugin", "groupVersion", gv, "err", err)
	}
	return ok
}

// servesResourceClaims asks the API server whether it serves
// resource.k8s.io/v1beta1, which Kubernetes 1.32 does only with the
// DynamicResourceAllocation feature gate and that API turned on, and says
// so when it does not: no ResourceClaim is then watched, and a pod that
// names one stays pending (its claim cannot be found).
func servesResourceClaims(vc vcclient.Interface) bool {
	gv := resourcev1beta1.SchemeGroupVersion.String()
	ok, err := serves(vc, gv, "resourceclaims")
	if !ok {
		klog.InfoS("The API server serves no resource.k8s.io/v1beta1 ResourceClaims, so dynamic resource allocation has no devices; pods with ResourceClaims stay pending", "groupVersion", gv, "err", err)
	}
	return ok
}

// serves reports whether the API server serves the resource in the group
// version.
func serves(vc vcclient.Interface, gv, resource string) (bool, error) {
	list, err := vc.Discovery().ServerResourcesForGroupVersion(gv)
	if err != nil {
		return false, err
	}
	for _, r := range list.APIResources {
		if r.Name == resource {
			return true, nil
		}
	}
	return false, nil
}
