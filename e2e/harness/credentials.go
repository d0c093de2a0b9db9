package harness

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

// adminUser is the identity of the tests and kwok, in system:masters.
const adminUser = "e2e-admin"

// writeServiceAccountKeys writes the key pair kube-apiserver signs and
// verifies service account tokens with; nothing in the suite uses such
// tokens, but the apiserver will not start without them.
func writeServiceAccountKeys(dir string) (private, public string, err error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", "", err
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return "", "", err
	}
	private, public = filepath.Join(dir, "sa.key"), filepath.Join(dir, "sa.pub")
	if err := writePEM(private, "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(key)); err != nil {
		return "", "", err
	}
	if err := writePEM(public, "PUBLIC KEY", pub); err != nil {
		return "", "", err
	}
	return private, public, nil
}

func writePEM(path, kind string, der []byte) error {
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600)
}

func randomToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// writeTokenFile writes kube-apiserver's --token-auth-file
// (token,user,uid,"group,group") with the admin and the scheduler.
func writeTokenFile(path, adminToken, schedulerToken string, scheduler schedulerIdentity) error {
	content := fmt.Sprintf("%s,%s,%s,system:masters\n%s,%s,%s,\"%s\"\n",
		adminToken, adminUser, adminUser,
		schedulerToken, scheduler.user, scheduler.user, strings.Join(scheduler.groups, ","))
	return os.WriteFile(path, []byte(content), 0o600)
}

// kubeconfig is the subset of the kubeconfig format the suite writes.
type kubeconfig struct {
	APIVersion     string         `json:"apiVersion"`
	Kind           string         `json:"kind"`
	Clusters       []namedCluster `json:"clusters"`
	Users          []namedUser    `json:"users"`
	Contexts       []namedContext `json:"contexts"`
	CurrentContext string         `json:"current-context"`
}

type namedCluster struct {
	Name    string `json:"name"`
	Cluster struct {
		Server                string `json:"server"`
		InsecureSkipTLSVerify bool   `json:"insecure-skip-tls-verify"`
	} `json:"cluster"`
}

type namedUser struct {
	Name string `json:"name"`
	User struct {
		Token string `json:"token"`
	} `json:"user"`
}

type namedContext struct {
	Name    string `json:"name"`
	Context struct {
		Cluster string `json:"cluster"`
		User    string `json:"user"`
	} `json:"context"`
}

// writeKubeconfig writes a kubeconfig for server and token. The apiserver's
// serving certificate is self-signed in its --cert-dir, hence the skipped
// verification; everything is on loopback.
func writeKubeconfig(path, server, user, token string) error {
	var c namedCluster
	c.Name = "e2e"
	c.Cluster.Server = server
	c.Cluster.InsecureSkipTLSVerify = true
	var u namedUser
	u.Name = user
	u.User.Token = token
	var x namedContext
	x.Name = "e2e"
	x.Context.Cluster = "e2e"
	x.Context.User = user
	out, err := yaml.Marshal(kubeconfig{
		APIVersion: "v1", Kind: "Config",
		Clusters: []namedCluster{c}, Users: []namedUser{u}, Contexts: []namedContext{x},
		CurrentContext: "e2e",
	})
	if err != nil {
		return err
	}
	return os.WriteFile(path, out, 0o600)
}

// restConfig is the client configuration of the test's own clients: admin,
// and with limits high enough that creating hundreds of pods is not
// throttled client-side.
func restConfig(server, token string) *rest.Config {
	return &rest.Config{
		Host:            server,
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{Insecure: true},
		QPS:             500,
		Burst:           1000,
		UserAgent:       "caldera-e2e",
	}
}

// freePort asks the kernel for an unused loopback port. The port is free
// when this returns; a process started right after can bind it.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func loopback(port int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) }
