package ocimodule

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/opencontainers/go-digest"

	"github.com/caldera-scheduler/caldera/internal/regularfile"
	"github.com/caldera-scheduler/caldera/runtime/cachedir"
)

// Store keeps pulled manifests and modules by digest, and what each tag
// last resolved to. On disk (under the Wasm cache directory, so that one
// size bound and one eviction cover compiled and pulled modules) it
// outlives the process: a restart with the registry away serves from it.
// With no directory it lives in memory, for the process.
//
// Every read is checked against its digest: a blob damaged on disk is
// removed and read as absent, so the next pull fetches it again.
type Store struct {
	dir string // "" keeps blobs in memory

	mu   sync.Mutex
	mem  map[digest.Digest][]byte
	tags map[string]digest.Digest
}

// NewStore returns a store under cacheDir, or in memory when cacheDir is
// empty.
func NewStore(cacheDir string) *Store {
	return &Store{dir: cacheDir, mem: map[digest.Digest][]byte{}, tags: map[string]digest.Digest{}}
}

func (s *Store) blobPath(d digest.Digest) string {
	return filepath.Join(s.dir, cachedir.OCIBlobs, d.Encoded())
}

func (s *Store) tagPath(ref string) string {
	sum := sha256.Sum256([]byte(ref))
	return filepath.Join(s.dir, cachedir.OCITags, hex.EncodeToString(sum[:]))
}

// Get returns the blob of digest d, if the store has it intact.
func (s *Store) Get(d digest.Digest) ([]byte, bool) {
	if d.Algorithm() != digest.SHA256 || d.Validate() != nil {
		return nil, false
	}
	if s.dir == "" {
		s.mu.Lock()
		defer s.mu.Unlock()
		b, ok := s.mem[d]
		return b, ok
	}
	path := s.blobPath(d)
	b, err := regularfile.Read(path, regularfile.MaxModule)
	if err != nil {
		return nil, false
	}
	if digest.FromBytes(b) != d {
		_ = os.Remove(path) // damaged: fetched again next time
		return nil, false
	}
	// Eviction removes the least recently used first: this one was used.
	now := time.Now()
	_ = os.Chtimes(path, now, now)
	return b, true
}

// Put keeps b as the blob of its digest d.
func (s *Store) Put(d digest.Digest, b []byte) error {
	if digest.FromBytes(b) != d {
		return fmt.Errorf("blob does not match its digest %s", d)
	}
	if s.dir == "" {
		s.mu.Lock()
		s.mem[d] = b
		s.mu.Unlock()
		return nil
	}
	return writeAtomic(s.blobPath(d), b)
}

// Tag returns the digest ref last resolved to, as SetTag recorded it.
func (s *Store) Tag(ref string) (digest.Digest, bool) {
	if s.dir == "" {
		s.mu.Lock()
		defer s.mu.Unlock()
		d, ok := s.tags[ref]
		return d, ok
	}
	b, err := regularfile.Read(s.tagPath(ref), 4096)
	if err != nil {
		return "", false
	}
	// "<digest> <ref>": the reference guards against a hash collision of
	// names and says what the file is to whoever lists the folder.
	text, name, ok := strings.Cut(strings.TrimSpace(string(b)), " ")
	d := digest.Digest(text)
	if !ok || name != ref || d.Validate() != nil {
		return "", false
	}
	return d, true
}

// SetTag records that ref resolved to d.
func (s *Store) SetTag(ref string, d digest.Digest) error {
	if s.dir == "" {
		s.mu.Lock()
		s.tags[ref] = d
		s.mu.Unlock()
		return nil
	}
	return writeAtomic(s.tagPath(ref), []byte(d.String()+" "+ref+"\n"))
}

// writeAtomic writes through a temporary file and a rename, so that a
// reader, or a restart after a crash, never sees half a blob.
func writeAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, werr := f.Write(b)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	return nil
}
