package redrive

import (
	"os"
	"runtime/debug"
)

// TuneGC trades memory for CPU during a move, unless GOGC or GOMEMLIMIT
// say otherwise: the collector runs when the heap has grown by 4× its live
// size rather than 2× — at --rate max a move shares the CPU with the HTTP
// and JSON work of every call, and the default collector cost about a
// tenth of the rate (docs/redrive.md) — but no later than at
// the plan's MemoryLimit, which bounds the process's memory.
func (p *Plan) TuneGC() {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(400)
		debug.SetMemoryLimit(p.MemoryLimit())
	}
}
