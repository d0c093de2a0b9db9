package ocimodule

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"

	"oras.land/oras-go/v2/registry"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/credentials"
	"oras.land/oras-go/v2/registry/remote/retry"
)

// Remote says how to reach registries.
type Remote struct {
	// CredentialsFile is a Docker config file (the .dockerconfigjson key of
	// a kubernetes.io/dockerconfigjson Secret, mounted): its "auths" give
	// each registry's credentials. It is read at every pull, so that a
	// rotated Secret takes effect without a restart. Empty: anonymous.
	CredentialsFile string
	// CAFile holds PEM certificates trusted beside the system's.
	CAFile string
	// InsecureSkipVerify accepts any TLS certificate: for trying things
	// out only; the reference's digest still guards the content.
	InsecureSkipVerify bool
	// PlainHTTP talks HTTP instead of HTTPS to every registry.
	PlainHTTP bool
}

// Check reports settings that cannot work: a credentials file or CA file
// that cannot be read or parsed. It is called once at start, so that a
// typo is an error there rather than at the first pull.
func (o Remote) Check() error {
	if o.CredentialsFile != "" {
		// A missing file reads as no credentials at all: say so here.
		if _, err := os.Stat(o.CredentialsFile); err != nil {
			return fmt.Errorf("registry credentials: %w", err)
		}
		if _, err := credentials.NewFileStore(o.CredentialsFile); err != nil {
			return fmt.Errorf("registry credentials %s: %w", o.CredentialsFile, err)
		}
	}
	_, err := o.tlsConfig()
	return err
}

func (o Remote) tlsConfig() (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: o.InsecureSkipVerify} // #nosec G402 -- only when asked
	if o.CAFile == "" {
		return cfg, nil
	}
	pem, err := os.ReadFile(o.CAFile)
	if err != nil {
		return nil, fmt.Errorf("registry CA file: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("registry CA file %s: no PEM certificate in it", o.CAFile)
	}
	cfg.RootCAs = pool
	return cfg, nil
}

// repository returns a client of ref's repository.
func (o Remote) repository(ref registry.Reference) (*remote.Repository, error) {
	tlsCfg, err := o.tlsConfig()
	if err != nil {
		return nil, err
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.TLSClientConfig = tlsCfg
	repo := &remote.Repository{
		Reference: ref,
		PlainHTTP: o.PlainHTTP,
		Client: &auth.Client{
			// oras' retrying transport: transient 5xx and 429 answers are
			// retried a few times within one pull.
			Client:     &http.Client{Transport: retry.NewTransport(transport)},
			Cache:      auth.NewCache(),
			Credential: o.credential,
			Header:     http.Header{"User-Agent": {"caldera"}},
		},
	}
	return repo, nil
}

// credential reads the credentials file afresh for each registry asked.
func (o Remote) credential(ctx context.Context, hostport string) (auth.Credential, error) {
	if o.CredentialsFile == "" {
		return auth.EmptyCredential, nil
	}
	store, err := credentials.NewFileStore(o.CredentialsFile)
	if err != nil {
		return auth.EmptyCredential, fmt.Errorf("registry credentials %s: %w", o.CredentialsFile, err)
	}
	return store.Get(ctx, hostport)
}
