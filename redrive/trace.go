package redrive

import (
	"fmt"
	"os"
	"sync"
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
