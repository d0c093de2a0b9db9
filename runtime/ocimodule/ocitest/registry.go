// Package ocitest serves, from memory, the part of the OCI distribution
// API that pushes and pulls use: enough to run registry clients against
// HTTP, TLS and basic auth in unit tests. The end-to-end suite runs the
// real registry.
package ocitest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// Registry is a registry in memory.
type Registry struct {
	*httptest.Server
	mu    sync.Mutex
	blobs map[string][]byte // by digest, manifests too
	types map[string]string // media type of each manifest, by digest
	tags  map[string]string // repository:tag -> digest
	// Requests counts the requests served.
	Requests atomic.Int64
	// User and Password, when set before the first request, make every
	// request need basic auth.
	User, Password string
	// Down, while set, answers every request 403 Forbidden, as a
	// registry refusing service does (a status no client retries on its
	// own).
	Down atomic.Bool
	// Corrupt, when set, alters what a GET of a blob or manifest returns.
	Corrupt func(digest string, b []byte) []byte
}

var (
	manifestPath = regexp.MustCompile(`^/v2/(.+)/manifests/([^/]+)$`)
	blobPath     = regexp.MustCompile(`^/v2/(.+)/blobs/(sha256:[0-9a-f]{64})$`)
	uploadPath   = regexp.MustCompile(`^/v2/(.+)/blobs/uploads/(.*)$`)
)

// New starts a registry, with TLS when tlsServer is set (its certificate
// is Server.Certificate()); the test's cleanup stops it.
func New(t testing.TB, tlsServer bool) *Registry {
	r := &Registry{blobs: map[string][]byte{}, types: map[string]string{}, tags: map[string]string{}}
	if tlsServer {
		r.Server = httptest.NewTLSServer(r)
	} else {
		r.Server = httptest.NewServer(r)
	}
	t.Cleanup(r.Close)
	return r
}

// Host is the registry's host:port, as references name it.
func (r *Registry) Host() string {
	return strings.TrimPrefix(strings.TrimPrefix(r.URL, "https://"), "http://")
}

// DigestOf is the sha256 digest of b, as the registry names blobs.
func DigestOf(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func (r *Registry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.Requests.Add(1)
	if r.Down.Load() {
		http.Error(w, "down", http.StatusForbidden)
		return
	}
	if r.User != "" {
		if u, p, ok := req.BasicAuth(); !ok || u != r.User || p != r.Password {
			w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	path := req.URL.Path
	switch {
	case path == "/v2/" || path == "/v2":
		w.WriteHeader(http.StatusOK)
	case uploadPath.MatchString(path):
		m := uploadPath.FindStringSubmatch(path)
		if req.Method == http.MethodPost {
			w.Header().Set("Location", "/v2/"+m[1]+"/blobs/uploads/1")
			w.WriteHeader(http.StatusAccepted)
			return
		}
		body, _ := io.ReadAll(req.Body)
		d := req.URL.Query().Get("digest")
		if DigestOf(body) != d {
			http.Error(w, "digest mismatch", http.StatusBadRequest)
			return
		}
		r.blobs[d] = body
		w.Header().Set("Location", "/v2/"+m[1]+"/blobs/"+d)
		w.WriteHeader(http.StatusCreated)
	case manifestPath.MatchString(path):
		m := manifestPath.FindStringSubmatch(path)
		d := m[2]
		if !strings.HasPrefix(d, "sha256:") {
			d = r.tags[m[1]+":"+m[2]]
		}
		if req.Method == http.MethodPut {
			body, _ := io.ReadAll(req.Body)
			d = DigestOf(body)
			r.blobs[d], r.types[d] = body, req.Header.Get("Content-Type")
			if !strings.HasPrefix(m[2], "sha256:") {
				r.tags[m[1]+":"+m[2]] = d
			}
			w.Header().Set("Docker-Content-Digest", d)
			w.WriteHeader(http.StatusCreated)
			return
		}
		r.serveBlob(w, req, d, r.types[d])
	case blobPath.MatchString(path):
		r.serveBlob(w, req, blobPath.FindStringSubmatch(path)[2], "application/octet-stream")
	default:
		http.NotFound(w, req)
	}
}

// PutManifest stores a manifest as pushed and returns its digest.
func (r *Registry) PutManifest(b []byte, mediaType string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	d := DigestOf(b)
	r.blobs[d], r.types[d] = b, mediaType
	return d
}

func (r *Registry) serveBlob(w http.ResponseWriter, req *http.Request, d, mediaType string) {
	b, ok := r.blobs[d]
	if !ok {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"errors":[{"code":"MANIFEST_UNKNOWN","message":"unknown"}]}`)
		return
	}
	if r.Corrupt != nil {
		b = r.Corrupt(d, b)
	}
	w.Header().Set("Content-Type", mediaType)
	w.Header().Set("Docker-Content-Digest", d)
	w.Header().Set("Content-Length", fmt.Sprint(len(b)))
	if req.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(b)
}
