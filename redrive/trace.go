package redrive

import (
	"fmt"
	"os"
	"runtime/pprof"
	"sync"
	"syscall"
	"time"
)

// TraceEnv names the environment variable that makes a run print, on
// stderr, when each phase before the first send began, counted from the
// process's start ("MFDLQ_TRACE=1 mfdlq redrive …"): how the start's
// time is spent (the lease's read-back, the reads beside it) is measured,
// not guessed. Unset, nothing is printed.
const TraceEnv = "MFDLQ_TRACE"

var (
	traceOn    = os.Getenv(TraceEnv) != ""
	traceStart = time.Now() // the package's init: the process's start, near enough
	traceMu    sync.Mutex
	traceOnce  = map[string]bool{}
)

// tracef prints one phase's start once (the first time what is said),
// when TraceEnv is set.
func tracef(what string) {
	if !traceOn {
		return
	}
	traceMu.Lock()
	defer traceMu.Unlock()
	if traceOnce[what] {
		return
	}
	traceOnce[what] = true
	fmt.Fprintf(os.Stderr, "trace: %6.1f ms %s\n", float64(time.Since(traceStart).Microseconds())/1000, what)
}

// ProfileEnv names the environment variable that makes Run write a CPU
// profile of itself (the move, from the lease on) to the file it names
// followed by the process id ("MFDLQ_CPUPROFILE=cpu mfdlq redrive …"
// writes cpu.4242; then go tool pprof), so that a bench's runs each keep
// their own: the move's CPU is measured where it is spent. Unset, nothing
// is written.
const ProfileEnv = "MFDLQ_CPUPROFILE"

// profileRun starts Run's CPU profile when ProfileEnv names a file; the
// returned func stops it.
func profileRun() func() {
	path := os.Getenv(ProfileEnv)
	if path == "" {
		return func() {}
	}
	// A new file of ours, 0600, never through a link: the profile names
	// the code's functions, and the path is the environment's.
	f, err := os.OpenFile(fmt.Sprintf("%s.%d", path, os.Getpid()), os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", ProfileEnv, err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", ProfileEnv, err)
		f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
