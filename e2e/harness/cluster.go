package harness

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	vcclient "volcano.sh/apis/pkg/client/clientset/versioned"
)

// Cluster is the control plane the suite runs against.
type Cluster struct {
	Config Config
	// Dir holds every file of the run: data, logs, kubeconfigs, binaries.
	Dir string

	// AdminKubeconfig is a system:masters kubeconfig (tests, kwok).
	AdminKubeconfig string
	// SchedulerKubeconfig is the identity caldera runs with: the deploy
	// manifest's ServiceAccount (or the admin, see Config.SchedulerAdmin).
	SchedulerKubeconfig string

	// Clients, as the admin.
	REST    *rest.Config
	Kube    kubernetes.Interface
	Volcano vcclient.Interface
	Dynamic dynamic.Interface

	identity       schedulerIdentity
	server         string // https://127.0.0.1:port
	adminToken     string
	schedulerToken string

	mu              sync.Mutex // guards apiserver
	etcd            *process
	apiserver       *process
	apiserverArgs   []string
	apiserverStarts atomic.Int32
	kwok            *process
	// volcanoCRDs says Volcano's release CRDs (Config.VolcanoCRDDir) were
	// applied, so its controllers can run.
	volcanoCRDs bool

	caldera    string // the scheduler binary
	calderaErr error  // why it could not be built
}

// Start builds (or locates) the caldera binary, brings up etcd,
// kube-apiserver and kwok with their files in dir, and applies the CRDs and
// the scheduler's RBAC. On error everything started is stopped and dir is
// left for inspection.
func Start(ctx context.Context, cfg Config, dir string) (c *Cluster, err error) {
	c = &Cluster{Config: cfg, Dir: dir}
	if c.identity, err = readSchedulerIdentity(cfg.RBACManifest); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			c.Stop()
		}
	}()
	c.buildCaldera(ctx)
	if err := c.startEtcd(ctx); err != nil {
		return nil, err
	}
	if err := c.startAPIServer(ctx); err != nil {
		return nil, err
	}
	if err := c.connect(); err != nil {
		return nil, err
	}
	if err := c.applyCRDs(ctx); err != nil {
		return nil, err
	}
	if err := c.applySchedulerRBAC(ctx); err != nil {
		return nil, err
	}
	if err := c.startKwok(); err != nil {
		return nil, err
	}
	return c, nil
}

// Stop ends every process the harness started (the control plane and any
// scheduler still running) and waits for them.
func (c *Cluster) Stop() { stopAll(15 * time.Second) }

func (c *Cluster) path(name string) string { return filepath.Join(c.Dir, name) }

func (c *Cluster) startEtcd(ctx context.Context) error {
	clientPort, err := freePort()
	if err != nil {
		return err
	}
	peerPort, err := freePort()
	if err != nil {
		return err
	}
	client, peer := "http://"+loopback(clientPort), "http://"+loopback(peerPort)
	c.etcd, err = startProcess("etcd", c.path("etcd.log"), c.Config.bin("etcd"),
		"--name=e2e",
		"--data-dir="+c.path("etcd"),
		"--listen-client-urls="+client,
		"--advertise-client-urls="+client,
		"--listen-peer-urls="+peer,
		"--initial-advertise-peer-urls="+peer,
		"--initial-cluster=e2e="+peer,
		// Throwaway data: durability only costs time.
		"--unsafe-no-fsync",
		"--log-level=warn",
	)
	if err != nil {
		return err
	}
	c.apiserverArgs = []string{"--etcd-servers=" + client}
	return waitHTTP(ctx, c.etcd, 30*time.Second, client+"/health", "", `"health":"true"`)
}

// startAPIServer writes the apiserver's credentials and starts it the first
// time; RestartAPIServer reuses its arguments.
func (c *Cluster) startAPIServer(ctx context.Context) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	c.server = "https://" + loopback(port)
	saKey, saPub, err := writeServiceAccountKeys(c.Dir)
	if err != nil {
		return err
	}
	if c.adminToken, err = randomToken(); err != nil {
		return err
	}
	if c.schedulerToken, err = randomToken(); err != nil {
		return err
	}
	tokens := c.path("tokens.csv")
	if err := writeTokenFile(tokens, c.adminToken, c.schedulerToken, c.identity); err != nil {
		return err
	}
	c.AdminKubeconfig = c.path("admin.kubeconfig")
	if err := writeKubeconfig(c.AdminKubeconfig, c.server, adminUser, c.adminToken); err != nil {
		return err
	}
	c.SchedulerKubeconfig = c.path("scheduler.kubeconfig")
	if c.Config.SchedulerAdmin {
		c.SchedulerKubeconfig, c.schedulerToken = c.AdminKubeconfig, c.adminToken
	} else if err := writeKubeconfig(c.SchedulerKubeconfig, c.server, "caldera", c.schedulerToken); err != nil {
		return err
	}
	c.apiserverArgs = append(c.apiserverArgs,
		"--bind-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", port),
		// Generated once, on the first start, and reused by restarts.
		"--cert-dir="+c.path("certs"),
		"--token-auth-file="+tokens,
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file="+saPub,
		"--service-account-signing-key-file="+saKey,
		"--service-cluster-ip-range=10.96.0.0/16",
		"--endpoint-reconciler-type=none",
		// ServiceAccount: no controller-manager creates default service
		// accounts, so pods would be rejected. TaintNodesByCondition: new nodes
		// get a not-ready NoSchedule taint that only the node lifecycle
		// controller (not running) would lift, so no pod would ever fit.
		"--disable-admission-plugins=ServiceAccount,TaintNodesByCondition",
		// Dynamic resource allocation's resource.k8s.io/v1beta1 (beta in
		// 1.32, off by default), so that caldera watches ResourceClaims,
		// ResourceSlices and DeviceClasses and the DRA tests can create
		// them. Pods without claims are stored as before (the gate only
		// keeps spec.resourceClaims and the containers' resources.claims);
		// the other components the suite starts have gates of their own,
		// left off.
		"--feature-gates=DynamicResourceAllocation=true",
		"--runtime-config=resource.k8s.io/v1beta1=true",
		// A graceful stop otherwise waits up to --request-timeout (60s) for
		// open watches; these close them within a few seconds, as a
		// production apiserver configured for rolling restarts does.
		"--shutdown-send-retry-after=true",
		"--shutdown-watch-termination-grace-period=2s",
	)
	return c.launchAPIServer(ctx)
}

func (c *Cluster) launchAPIServer(ctx context.Context) error {
	p, err := startProcess("kube-apiserver", c.path("kube-apiserver.log"), c.Config.bin("kube-apiserver"), c.apiserverArgs...)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.apiserver = p
	c.mu.Unlock()
	c.apiserverStarts.Add(1)
	return waitHTTP(ctx, p, 60*time.Second, c.server+"/readyz", c.adminToken, "ok")
}

// RestartAPIServer stops kube-apiserver (SIGTERM, as a rolling upgrade
// would) and starts it again on the same port against the same etcd, and
// waits until it is ready.
func (c *Cluster) RestartAPIServer(ctx context.Context) error {
	c.mu.Lock()
	p := c.apiserver
	c.mu.Unlock()
	if killed, _ := p.stop(30 * time.Second); killed {
		return errors.New("kube-apiserver did not stop within 30s of SIGTERM")
	}
	return c.launchAPIServer(ctx)
}

func (c *Cluster) startKwok() error {
	var err error
	c.kwok, err = startProcess("kwok", c.path("kwok.log"), c.Config.bin("kwok"),
		"--kubeconfig="+c.AdminKubeconfig,
		"--manage-all-nodes=true",
		"--config="+c.Config.KwokStages,
		// The default pod CIDR is a /24: at most 254 running pods.
		"--cidr=10.0.0.0/16",
	)
	return err
}

func (c *Cluster) connect() error {
	c.REST = restConfig(c.server, c.adminToken)
	var err error
	if c.Kube, err = kubernetes.NewForConfig(c.REST); err != nil {
		return err
	}
	if c.Volcano, err = vcclient.NewForConfig(c.REST); err != nil {
		return err
	}
	c.Dynamic, err = dynamic.NewForConfig(c.REST)
	return err
}

// SchedulerREST is a client configuration with the scheduler's identity,
// for checking what the scheduler may do.
func (c *Cluster) SchedulerREST() *rest.Config { return restConfig(c.server, c.schedulerToken) }

// LogPaths names the control plane's log files, for failure messages.
func (c *Cluster) LogPaths() string {
	return fmt.Sprintf("etcd: %s, kube-apiserver: %s, kwok: %s",
		c.path("etcd.log"), c.path("kube-apiserver.log"), c.path("kwok.log"))
}

// waitHTTP polls url until it answers 200 with a body containing want, the
// process exits, or timeout passes.
func waitHTTP(ctx context.Context, p *process, timeout time.Duration, url, token, want string) error {
	client := &http.Client{
		Timeout:   2 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}},
	}
	defer client.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	last := "no answer yet"
	for {
		if p.exited() {
			return fmt.Errorf("%s exited while waiting for %s (%v); log: %s\n%s", p.name, url, p.err, p.logPath, tail(p.logPath, 30))
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if resp, err := client.Do(req); err != nil {
			last = err.Error()
		} else {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && strings.Contains(string(body), want) {
				return nil
			}
			last = fmt.Sprintf("%s: %s", resp.Status, body)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s not ready after %s: %s; log: %s", p.name, timeout, last, p.logPath)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
