package harness

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// Registry is the distribution project's OCI registry (built by
// hack/e2e-tools.sh), serving one test over TLS with basic auth, its
// blobs on disk: as a private registry a cluster pulls modules from.
type Registry struct {
	// Host is host:port, as image references name it.
	Host string
	// CAFile is the PEM certificate of the authority that signed the
	// registry's certificate: what --registry-ca-file is given.
	CAFile string
	// CredentialsFile is a .dockerconfigjson with the registry's user: what
	// --registry-config is given.
	CredentialsFile string
	LogPath         string

	tc      *Test
	name    string
	starts  int
	bin     string
	config  string
	proc    *process
	stopped atomic.Bool
	caPool  *x509.CertPool
}

// registryUser and registryPassword are the registry's only account.
const registryUser, registryPassword = "policy-ci", "e2e-secret"

var registrySeq atomic.Int32

// StartRegistry starts a registry for the test: a CA and a certificate for
// 127.0.0.1, an htpasswd file, storage under the run's directory. It is
// stopped when the test ends; Stop and Start stop and restart it with the
// same address and storage.
func (tc *Test) StartRegistry() *Registry {
	t, c := tc.t, tc.c
	t.Helper()
	bin := c.Config.bin("registry")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("no registry: %v (run `make e2e-tools`)", err)
	}
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("registry-%d", registrySeq.Add(1))
	dir := filepath.Join(c.Dir, name)
	if err := os.MkdirAll(filepath.Join(dir, "storage"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := &Registry{Host: loopback(port), LogPath: filepath.Join(c.Dir, name+".log"), tc: tc, name: name, bin: bin}
	if err := r.writeFiles(dir); err != nil {
		t.Fatal(err)
	}
	r.Start()
	tc.stopAtEnd(name, r.LogPath, r.Stop)
	return r
}

// writeFiles writes the CA, the server's key and certificate, the
// htpasswd file, the credentials file and the registry's configuration.
func (r *Registry) writeFiles(dir string) error {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "caldera e2e registry CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:    x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	r.CAFile = filepath.Join(dir, "ca.pem")
	cert, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	for path, block := range map[string]*pem.Block{r.CAFile: {Type: "CERTIFICATE", Bytes: caDER}, cert: {Type: "CERTIFICATE", Bytes: der}, keyFile: {Type: "EC PRIVATE KEY", Bytes: keyDER}} {
		if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
			return err
		}
	}
	r.caPool = x509.NewCertPool()
	r.caPool.AddCert(ca)
	hash, err := bcrypt.GenerateFromPassword([]byte(registryPassword), bcrypt.MinCost)
	if err != nil {
		return err
	}
	htpasswd := filepath.Join(dir, "htpasswd")
	if err := os.WriteFile(htpasswd, fmt.Appendf(nil, "%s:%s\n", registryUser, hash), 0o600); err != nil {
		return err
	}
	r.CredentialsFile = filepath.Join(dir, ".dockerconfigjson")
	auth := base64.StdEncoding.EncodeToString([]byte(registryUser + ":" + registryPassword))
	if err := os.WriteFile(r.CredentialsFile, fmt.Appendf(nil, `{"auths":{%q:{"auth":%q}}}`, r.Host, auth), 0o600); err != nil {
		return err
	}
	r.config = filepath.Join(dir, "config.yml")
	conf := fmt.Sprintf(`version: 0.1
log:
  level: info
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: %s
http:
  addr: %s
  tls:
    certificate: %s
    key: %s
auth:
  htpasswd:
    realm: caldera-e2e
    path: %s
`, filepath.Join(dir, "storage"), r.Host, cert, keyFile, htpasswd)
	return os.WriteFile(r.config, []byte(conf), 0o600)
}

// Start starts the registry (again) and waits until it answers.
func (r *Registry) Start() {
	t := r.tc.t
	t.Helper()
	r.stopped.Store(false)
	r.starts++
	logPath := r.LogPath // a restart logs beside the first start's log
	if r.starts > 1 {
		logPath = fmt.Sprintf("%s.%d", r.LogPath, r.starts)
	}
	r.proc = r.tc.launch(r.name, logPath, r.bin, []string{"serve", r.config})
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: r.caPool, MinVersion: tls.VersionTLS12}}}
	Eventually(t, 30*time.Second, func() (bool, string) {
		if r.proc.exited() {
			t.Fatalf("the registry exited: %v\n%s", r.proc.err, tail(r.proc.logPath, 30))
		}
		resp, err := client.Get("https://" + r.Host + "/v2/")
		if err != nil {
			return false, err.Error()
		}
		resp.Body.Close()
		// 401: up, and asking for the credentials it should.
		return resp.StatusCode == http.StatusUnauthorized, fmt.Sprintf("GET /v2/ answered %d, want 401", resp.StatusCode)
	})
}

// Stop stops the registry; its storage stays for Start.
func (r *Registry) Stop() error {
	return stopUnjudged(&r.stopped, r.proc, "registry")
}
