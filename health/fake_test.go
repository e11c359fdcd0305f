package health

import (
	"context"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
)

// fakeClock is a test's time: Sleep advances it at once and then runs
// the hooks due by the new time (an alarm flipping at minute 3).
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	hooks []hook
	slept []time.Duration
}

type hook struct {
	at time.Time
	do func()
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.slept = append(c.slept, d)
	var due []func()
	rest := c.hooks[:0]
	for _, h := range c.hooks {
		if !h.at.After(c.now) {
			due = append(due, h.do)
		} else {
			rest = append(rest, h)
		}
	}
	c.hooks = rest
	c.mu.Unlock()
	for _, f := range due {
		f()
	}
	return ctx.Err()
}

// at runs do once the clock has reached t.
func (c *fakeClock) at(t time.Time, do func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hooks = append(c.hooks, hook{t, do})
}

// fakeCW is an in-memory DescribeAlarms for the gate's own logic; the
// same paths run against moto in moto_test.go.
type fakeCW struct {
	mu     sync.Mutex
	clock  *fakeClock
	alarms map[string]*types.MetricAlarm
	calls  int
	fail   error // every call fails with it while set
	// metricCalls counts GetMetricData calls.
	metricCalls int
}

func newFakeCW(c *fakeClock) *fakeCW {
	return &fakeCW{clock: c, alarms: map[string]*types.MetricAlarm{}}
}

// set puts an alarm in state, as CloudWatch would at the clock's now
// (the transition time moves only when the state changes).
func (f *fakeCW) set(name, state string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.clock.Now()
	a, ok := f.alarms[name]
	if !ok {
		a = &types.MetricAlarm{AlarmName: aws.String(name)}
		f.alarms[name] = a
	}
	if !ok || string(a.StateValue) != state {
		a.StateTransitionedTimestamp = aws.Time(now)
	}
	a.StateValue = types.StateValue(state)
	a.StateUpdatedTimestamp = aws.Time(now)
}

func (f *fakeCW) DescribeAlarms(ctx context.Context, in *cloudwatch.DescribeAlarmsInput, _ ...func(*cloudwatch.Options)) (*cloudwatch.DescribeAlarmsOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.fail != nil {
		return nil, f.fail
	}
	out := &cloudwatch.DescribeAlarmsOutput{}
	for _, n := range in.AlarmNames {
		if a, ok := f.alarms[n]; ok {
			out.MetricAlarms = append(out.MetricAlarms, *a)
		}
	}
	return out, nil
}

// GetMetricData answers that no metric has data, and counts the calls.
func (f *fakeCW) GetMetricData(ctx context.Context, in *cloudwatch.GetMetricDataInput, _ ...func(*cloudwatch.Options)) (*cloudwatch.GetMetricDataOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.metricCalls++
	out := &cloudwatch.GetMetricDataOutput{}
	for _, q := range in.MetricDataQueries {
		out.MetricDataResults = append(out.MetricDataResults, types.MetricDataResult{Id: q.Id})
	}
	return out, nil
}

func (f *fakeCW) setFail(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail = err
}

func (f *fakeCW) callCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// bubbleClock is the wall clock inside a testing/synctest bubble, shifted
// to start: for tests in which two goroutines wait at once (a move and its
// watch). The bubble's time moves only when every goroutine in it waits,
// so neither can run the other's time away and the machine's load changes
// nothing (a clock running 200 times faster than the wall clock once let a
// busy machine stop the watch 47 s late).
type bubbleClock struct {
	start time.Time
	real  time.Time
}

func newBubbleClock(start time.Time) *bubbleClock {
	return &bubbleClock{start: start, real: time.Now()}
}

func (c *bubbleClock) Now() time.Time { return c.start.Add(time.Since(c.real)) }

func (c *bubbleClock) Sleep(ctx context.Context, d time.Duration) error {
	return RealClock{}.Sleep(ctx, d)
}
