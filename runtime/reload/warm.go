package reload

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"time"

	"k8s.io/klog/v2"

	"github.com/caldera-scheduler/caldera/internal/regularfile"
	"github.com/caldera-scheduler/caldera/runtime"
)

// warmer compiles a changed module as soon as its file changes, while
// Watch waits out the debounce, so that the reload which follows finds
// the code in the compilation cache and only instantiates and checks it.
// A new Go-toolchain module takes most of a second to compile, the
// debounce 200 ms: without this the two add up (docs/performance.md).
// It is only a head start: the reload reads, checks and loads the files
// itself, and a file the warmer read half-written just costs a failed or
// unused compile.
type warmer struct {
	dir  string
	opts runtime.Options // the compilation cache and default limits
	kick chan struct{}
	// turn lets one compile run at a time: each already uses every core,
	// and a ConfigMap update of several Go modules would otherwise hold
	// all their compilers' memory at once, as a reload never does.
	turn chan struct{}

	mu sync.Mutex
	// stamps holds each file's size and modification time when it was
	// last read, so that an event re-reads only the files it changed.
	stamps map[string]stamp
	// latest is the digest of each file's content when last read.
	latest map[string]string
	// read holds the digests of the modules in service and of the last
	// snapshot the reloader read, which it has loaded or refused itself:
	// never worth a compile here.
	read map[string]bool
	// jobs holds the compiles started, by module digest.
	jobs map[string]*warmJob
}

type stamp struct {
	size int64
	mod  time.Time
}

type warmJob struct {
	done chan struct{}
	// release gives the compiled code back; it does nothing until a
	// compile has succeeded. Set before done is closed.
	release func()
}

func newWarmer(dir string, opts runtime.Options) *warmer {
	return &warmer{dir: dir, opts: opts, kick: make(chan struct{}, 1), turn: make(chan struct{}, 1), stamps: map[string]stamp{}, latest: map[string]string{}, read: map[string]bool{}, jobs: map[string]*warmJob{}}
}

// changed asks for a look at the directory; it never blocks the caller.
func (w *warmer) changed() {
	if w == nil {
		return
	}
	select {
	case w.kick <- struct{}{}:
	default: // a look is already due
	}
}

// run looks at the directory whenever asked, until ctx is done, and then
// gives back every compile it holds.
func (w *warmer) run(ctx context.Context) {
	var compiles sync.WaitGroup
	defer func() {
		compiles.Wait()
		w.sweep(true)
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.kick:
			for _, job := range w.scan(ctx) {
				compiles.Add(1)
				go func() {
					defer compiles.Done()
					w.compile(ctx, job)
				}()
			}
		}
	}
}

// pending is a module file to compile.
type pending struct {
	path, digest string
	code         []byte
	job          *warmJob
}

// scan reads the module files whose size or time changed and returns
// those whose content neither the reloader nor the warmer has had yet,
// each with its job registered. Files gone from the directory are
// forgotten, so that their compiles are given back at the next sweep.
func (w *warmer) scan(ctx context.Context) []pending {
	entries, err := os.ReadDir(w.dir)
	if err != nil {
		return nil
	}
	present := make(map[string]bool, len(entries))
	defer func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		for path := range w.stamps {
			if !present[path] {
				delete(w.stamps, path)
				delete(w.latest, path)
			}
		}
	}()
	var out []pending
	for _, e := range entries {
		base := e.Name()
		if !isModuleFile(base) || ctx.Err() != nil {
			continue
		}
		path := filepath.Join(w.dir, base)
		present[path] = true
		info, err := os.Stat(path) // through a ConfigMap's link
		if err != nil {
			continue
		}
		st := stamp{info.Size(), info.ModTime()}
		w.mu.Lock()
		same := w.stamps[path] == st
		w.stamps[path] = st
		w.mu.Unlock()
		if same {
			continue
		}
		code, err := regularfile.Read(path, regularfile.MaxModule)
		if err != nil {
			continue
		}
		digest := contentDigest(code)
		w.mu.Lock()
		w.latest[path] = digest
		if w.jobs[digest] == nil && !w.read[digest] {
			job := &warmJob{done: make(chan struct{}), release: func() {}}
			w.jobs[digest] = job
			out = append(out, pending{path, digest, code, job})
		}
		w.mu.Unlock()
	}
	return out
}

// compile compiles one file's content into the cache. Code no reload
// will want any more (the reloader read that content meanwhile without
// waiting for it, for a plugin the configuration does not name, or the
// file changed again) is given back at once.
func (w *warmer) compile(ctx context.Context, p pending) {
	defer close(p.job.done)
	select {
	case w.turn <- struct{}{}:
		defer func() { <-w.turn }()
	case <-ctx.Done():
		return
	}
	w.mu.Lock()
	wanted := w.wanted(p.digest) // it may have gone stale waiting its turn
	w.mu.Unlock()
	if !wanted {
		return
	}
	start := time.Now()
	release, err := runtime.Precompile(ctx, p.code, w.opts)
	w.mu.Lock()
	if w.wanted(p.digest) {
		p.job.release = release
	} else {
		release()
		delete(w.jobs, p.digest)
	}
	w.mu.Unlock()
	if err != nil {
		klog.V(2).InfoS("A changed module did not compile ahead of its reload; the reload will check it", "file", p.path, "sha256", p.digest, "err", err)
		return
	}
	klog.V(2).InfoS("Compiled a changed module ahead of its reload", "file", p.path, "sha256", p.digest, "took", time.Since(start))
}

// await waits until no compile of digest is under way, so that a load of
// it finds the code compiled rather than compiling it a second time.
func (w *warmer) await(ctx context.Context, digest string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	job := w.jobs[digest]
	w.mu.Unlock()
	if job == nil {
		return
	}
	select {
	case <-job.done:
	case <-ctx.Done():
	}
}

// readBy records the digests of the modules the reloader has just read
// and of those in service: the warmer leaves that content alone from now
// on, and sweep gives back its compiles of it.
func (w *warmer) readBy(digests map[string]bool) {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.read = digests
	w.mu.Unlock()
	w.sweep(false)
}

// wanted reports whether compiled content may still serve a reload: no
// reload has read it yet (one that loaded it holds its own reference to
// the code now, and one that refused it does not want it), and it is
// still the content of a file as last read; w.mu held.
func (w *warmer) wanted(digest string) bool {
	if w.read[digest] {
		return false
	}
	for _, d := range w.latest {
		if d == digest {
			return true
		}
	}
	return false
}

// sweep gives back the finished compiles no longer wanted, or all of
// them. A compile still under way, or of a file changed after the reload
// read it, is kept for the next reload, which a change that recent will
// bring.
func (w *warmer) sweep(all bool) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for digest, job := range w.jobs {
		select {
		case <-job.done:
			if all || !w.wanted(digest) {
				job.release()
				delete(w.jobs, digest)
			}
		default:
		}
	}
}
