package redrive

import (
	"context"
	"time"

	"github.com/mfdlq/mfdlq/redrive/mover"
	"github.com/mfdlq/mfdlq/redrive/movetask"
	"github.com/mfdlq/mfdlq/untrusted"
)

// follow follows the move task that was already RUNNING on the DLQ
// (p.Follow) to its end, as a --native run of its own would: progress, and
// a summary whose Moved is the task's whole count. The task is not this
// run's: Ctrl-C stops following and leaves it running, saying how to
// cancel it.
func (r *runner) follow(ctx context.Context) (*Summary, error) {
	p, env := r.p, r.env
	t := p.Follow
	env.Info("following the message move task on %s (%s): it was running before this run", p.Source.Queue.Name, t.Describe())
	started, wall := env.Now(), time.Now()
	prog := &phases{env: env, total: int(t.ToMove), start: wall}
	st, err := movetask.Follow(ctx, env.SQS, p.Source.Queue, t.Handle, false, NativePoll, func(s movetask.TaskStatus) {
		prog.setTotal(s.ToMove)
		prog.update(mover.Stats{Moved: int(s.Moved)})
	})
	prog.finish()
	if err != nil {
		return nil, err
	}
	env.Info("message move task %s", st.Status)
	if st.Status == movetask.TaskRunning {
		env.Warn("the message move task on %s goes on without mfdlq: cancel it in the console (Cancel DLQ redrive) or with aws sqs cancel-message-move-task --task-handle %s", p.Source.Queue.Name, untrusted.Terminal(t.Handle))
	}
	stats := mover.Stats{Moved: int(st.Moved)}
	if st.Status == movetask.TaskFailed {
		stats.LastError = st.Failure
		stats.Halted = "message move task failed: " + st.Failure
	}
	return r.done(ctx, started, wall, stats, 0, nil)
}
