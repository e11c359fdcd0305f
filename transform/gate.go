package transform

import (
	"context"
	"sync"
)

// maxRuns is how many messages' programs run at once in the whole
// process, whatever the number of workers. A program's own values are
// not bounded while it runs (a `"x" * 300000000` is one allocation
// inside gojq, measured only once it is made), so the memory a move can
// take is this many times what one program builds in its 2 s: a move
// with 8 workers whose program built 200 MB strings peaked at 1.6 GB, 8
// strings at once. The work is CPU-bound and small (microseconds a
// message), so two at a time cost no throughput a queue could notice.
const maxRuns = 2

// gate admits at most cap(slots) programs at once; peak is the most that
// ran together, for the test.
type gate struct {
	slots         chan struct{}
	mu            sync.Mutex
	running, peak int
}

var runs = newGate(maxRuns)

func newGate(n int) *gate {
	return &gate{slots: make(chan struct{}, n)}
}

// enter waits for a slot (not counted in the program's time) and returns
// its release; false when ctx ended first.
func (g *gate) enter(ctx context.Context) (func(), bool) {
	select {
	case g.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, false
	}
	g.mu.Lock()
	g.running++
	g.peak = max(g.peak, g.running)
	g.mu.Unlock()
	return func() {
		g.mu.Lock()
		g.running--
		g.mu.Unlock()
		<-g.slots
	}, true
}
