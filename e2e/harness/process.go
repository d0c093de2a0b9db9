package harness

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// process is a child process in its own process group, with its output in
// a log file.
type process struct {
	name    string
	logPath string
	cmd     *exec.Cmd
	done    chan struct{} // closed once the process has been reaped
	err     error         // Wait's result, valid after done is closed
}

// live holds every process started and not yet reaped, so that stopAll can
// end them whatever the tests did.
var live = struct {
	sync.Mutex
	procs map[*process]struct{}
}{procs: map[*process]struct{}{}}

// spawnRequests is served by one goroutine locked to its OS thread for the
// life of the binary: Linux delivers a child's parent-death signal when the
// *thread* that forked it exits, and the Go runtime may retire other threads.
var (
	spawnRequests = make(chan spawnRequest)
	spawnerOnce   sync.Once
)

type spawnRequest struct {
	cmd   *exec.Cmd
	reply chan error
}

func spawner() {
	runtime.LockOSThread() // never unlocked: the thread lives as long as the process
	for r := range spawnRequests {
		r.reply <- r.cmd.Start()
	}
}

// startProcess starts bin with args, appending stdout and stderr to logPath.
func startProcess(name, logPath, bin string, args ...string) (*process, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = sysProcAttr()
	spawnerOnce.Do(func() { go spawner() })
	reply := make(chan error)
	spawnRequests <- spawnRequest{cmd, reply}
	if err := <-reply; err != nil {
		logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &process{name: name, logPath: logPath, cmd: cmd, done: make(chan struct{})}
	live.Lock()
	live.procs[p] = struct{}{}
	live.Unlock()
	go func() {
		p.err = cmd.Wait()
		logFile.Close()
		live.Lock()
		delete(live.procs, p)
		live.Unlock()
		close(p.done)
	}()
	return p, nil
}

// pid is the child's process id (and, by Setpgid, its process group id).
func (p *process) pid() int { return p.cmd.Process.Pid }

// exited reports whether the process has ended.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// signal sends sig to the process's whole group, so that anything it spawned
// gets it too.
func (p *process) signal(sig syscall.Signal) {
	if p.exited() {
		return
	}
	if err := signalGroup(p.cmd.Process, sig); err != nil {
		_ = p.cmd.Process.Signal(sig) // e.g. the group is gone but the leader not yet reaped
	}
}

// stop sends SIGTERM, waits up to grace, then SIGKILLs. It returns whether
// the process had to be killed and its exit error (nil for exit status 0).
func (p *process) stop(grace time.Duration) (killed bool, exitErr error) {
	p.signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return false, p.err
	case <-time.After(grace):
	}
	p.kill()
	return true, p.err
}

// kill SIGKILLs the process group and waits until the process is reaped.
func (p *process) kill() {
	p.signal(syscall.SIGKILL)
	<-p.done
}

// stopAll stops every live process: all get SIGTERM at once, and SIGKILL
// whatever is left after grace.
func stopAll(grace time.Duration) {
	live.Lock()
	procs := make([]*process, 0, len(live.procs))
	for p := range live.procs {
		procs = append(procs, p)
	}
	live.Unlock()
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.stop(grace)
		}()
	}
	wg.Wait()
}
