// Package livequeue makes a local queue live for tests: a producer and a
// consumer run on it while mfdlq works, as on a busy account, and the
// AWS/SQS metrics that SQS would publish for it — moto publishes none — go
// into moto's CloudWatch from what the harness observed. contain, verify,
// ls and the canary are tested against traffic and metrics this way.
//
// What it publishes, each Tick, stamped with the time of the tick (several
// points in one minute add up under Sum and average under Average, as
// CloudWatch aggregates a minute's points):
//   - NumberOfMessagesSent: its own producer's sends, plus each message of
//     somebody else's (a redrive's) the first time the consumer sees it;
//   - NumberOfMessagesReceived and NumberOfMessagesDeleted: the consumer's;
//   - ApproximateNumberOfMessagesVisible and …NotVisible: the queue's
//     attributes, read (not estimated) at the tick;
//   - ApproximateAgeOfOldestMessage: the oldest message it knows to be in
//     the queue (sent by its producer or seen by its consumer, not yet
//     deleted), leaving out, as SQS does on standard queues, messages
//     received three times or more. A message somebody else sent and the
//     consumer has not yet received is not counted: with a consumer
//     running that lag is one receive; with none (a paused consumer) only
//     the producer's messages age, which is what a test controls.
//
// Backfill publishes a steady history before a test starts, so that "the
// rate before the move" exists without waiting real minutes.
package livequeue

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/arn"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/cwapi"
)

// MetricReceived is SQS's count of messages returned by receives.
const MetricReceived = "NumberOfMessagesReceived"

// Config is one queue's traffic.
type Config struct {
	QueueURL string
	Rate     float64 // producer, messages per second (0: no producer)
	// Consumers is how many receive loops run (0: nothing consumes, as
	// behind a paused event source mapping).
	Consumers int
	// Handle decides a received message's fate: true deletes it (done),
	// false leaves it to its visibility timeout and the redrive policy
	// (failed). nil processes every message.
	Handle func(types.Message) bool
	// Body is the producer's i-th body (default: a small JSON order).
	Body func(i int) string
	// Tick is how often metrics are published (default 1 s).
	Tick time.Duration
}

// Stats are the harness's own counts.
type Stats struct {
	Produced, Received, Deleted, Failed int
	// Foreign counts messages the consumer saw that its producer did not
	// send (a redrive's).
	Foreign int
}

// Live is a queue with traffic; Stop ends it.
type Live struct {
	cfg  Config
	name string
	sqs  *sqs.Client
	cw   *cloudwatch.Client
	stop context.CancelFunc
	wg   sync.WaitGroup

	mu          sync.Mutex
	stats       Stats
	outstanding map[string]outstanding // MessageId → what the age metric needs
	deleted     map[string]bool        // MessageIds the consumer deleted
	sentDelta   int
	recvDelta   int
	delDelta    int
	publishErr  error
}

type outstanding struct {
	sent     time.Time
	receives int
}

// Start runs the traffic until Stop. cfg is an SDK configuration pointed
// at the local AWS.
func Start(ctx context.Context, awsCfg aws.Config, c Config) (*Live, error) {
	if c.Tick <= 0 {
		c.Tick = time.Second
	}
	if c.Body == nil {
		c.Body = func(i int) string { return fmt.Sprintf(`{"order_id":"live-%d","version":1}`, i) }
	}
	l := &Live{cfg: c, sqs: sqs.NewFromConfig(awsCfg), cw: cloudwatch.NewFromConfig(awsCfg, cwapi.ConfigureCloudWatch),
		outstanding: map[string]outstanding{}, deleted: map[string]bool{}}
	attrs, err := l.sqs.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(c.QueueURL),
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn}})
	if err != nil {
		return nil, fmt.Errorf("livequeue: %w", err)
	}
	a, err := arn.Parse(attrs.Attributes[string(types.QueueAttributeNameQueueArn)])
	if err != nil {
		return nil, fmt.Errorf("livequeue: %w", err)
	}
	l.name = a.Resource
	run, cancel := context.WithCancel(context.WithoutCancel(ctx))
	l.stop = cancel
	if c.Rate > 0 {
		l.wg.Add(1)
		go l.produce(run)
	}
	for range c.Consumers {
		l.wg.Add(1)
		go l.consume(run)
	}
	l.wg.Add(1)
	go l.publishLoop(run)
	return l, nil
}

// Stop ends the traffic, publishes the last observations and returns the
// counts, or the first publishing error.
func (l *Live) Stop() (Stats, error) {
	l.stop()
	l.wg.Wait()
	l.publish(context.Background(), time.Now())
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stats, l.publishErr
}

// Stats are the counts so far.
func (l *Live) Stats() Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stats
}

// Deleted tells whether the consumer deleted the message with this id.
func (l *Live) Deleted(id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.deleted[id]
}

func (l *Live) produce(ctx context.Context) {
	defer l.wg.Done()
	every := time.Duration(float64(time.Second) / l.cfg.Rate)
	t := time.NewTicker(every)
	defer t.Stop()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		// Not cancelled midway: a send SQS took but whose answer was
		// lost to Stop would be in the queue and not in the counts.
		out, err := l.sqs.SendMessage(context.WithoutCancel(ctx), &sqs.SendMessageInput{QueueUrl: aws.String(l.cfg.QueueURL), MessageBody: aws.String(l.cfg.Body(i))})
		if err != nil {
			continue
		}
		l.mu.Lock()
		l.stats.Produced++
		l.sentDelta++
		l.outstanding[aws.ToString(out.MessageId)] = outstanding{sent: time.Now()}
		l.mu.Unlock()
	}
}

func (l *Live) consume(ctx context.Context) {
	defer l.wg.Done()
	for ctx.Err() == nil {
		out, err := l.sqs.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(l.cfg.QueueURL), MaxNumberOfMessages: 10,
			WaitTimeSeconds: 1, MessageSystemAttributeNames: []types.MessageSystemAttributeName{"All"}})
		if err != nil {
			if ctx.Err() == nil {
				time.Sleep(100 * time.Millisecond)
			}
			continue
		}
		for _, m := range out.Messages {
			l.handle(ctx, m)
		}
	}
}

func (l *Live) handle(ctx context.Context, m types.Message) {
	id := aws.ToString(m.MessageId)
	l.mu.Lock()
	l.stats.Received++
	l.recvDelta++
	o, known := l.outstanding[id]
	if !known {
		// Somebody else's message: SQS counted its send; so do we, now.
		l.stats.Foreign++
		l.sentDelta++
		o.sent = time.Now()
		if ms, err := strconv.ParseInt(m.Attributes["SentTimestamp"], 10, 64); err == nil {
			o.sent = time.UnixMilli(ms)
		}
	}
	o.receives++
	l.outstanding[id] = o
	l.mu.Unlock()
	if l.cfg.Handle != nil && !l.cfg.Handle(m) {
		l.mu.Lock()
		l.stats.Failed++
		l.mu.Unlock()
		return
	}
	if _, err := l.sqs.DeleteMessage(context.WithoutCancel(ctx), &sqs.DeleteMessageInput{QueueUrl: aws.String(l.cfg.QueueURL), ReceiptHandle: m.ReceiptHandle}); err != nil {
		return
	}
	l.mu.Lock()
	l.stats.Deleted++
	l.delDelta++
	l.deleted[id] = true
	delete(l.outstanding, id)
	l.mu.Unlock()
}

func (l *Live) publishLoop(ctx context.Context) {
	defer l.wg.Done()
	t := time.NewTicker(l.cfg.Tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			// A tick in flight when Stop comes completes: Stop waits
			// for it, and a cancelled put would be a false error.
			l.publish(context.WithoutCancel(ctx), now)
		}
	}
}

// publish sends one tick's observations.
func (l *Live) publish(ctx context.Context, now time.Time) {
	attrs, err := l.sqs.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(l.cfg.QueueURL),
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameApproximateNumberOfMessages, types.QueueAttributeNameApproximateNumberOfMessagesNotVisible}})
	if err != nil {
		return
	}
	visible, _ := strconv.ParseFloat(attrs.Attributes[string(types.QueueAttributeNameApproximateNumberOfMessages)], 64)
	notVisible, _ := strconv.ParseFloat(attrs.Attributes[string(types.QueueAttributeNameApproximateNumberOfMessagesNotVisible)], 64)
	l.mu.Lock()
	m := Minute{Sent: float64(l.sentDelta), Received: float64(l.recvDelta), Deleted: float64(l.delDelta),
		Visible: visible, NotVisible: notVisible, AgeOfOldest: l.ageOfOldest(now)}
	l.sentDelta, l.recvDelta, l.delDelta = 0, 0, 0
	l.mu.Unlock()
	if err := Put(ctx, l.cw, l.name, now, m); err != nil {
		l.mu.Lock()
		if l.publishErr == nil {
			l.publishErr = err
		}
		l.mu.Unlock()
	}
}

// ageOfOldest is in seconds; l.mu is held.
func (l *Live) ageOfOldest(now time.Time) float64 {
	var oldest time.Time
	for _, o := range l.outstanding {
		if o.receives >= 3 {
			continue
		}
		if oldest.IsZero() || o.sent.Before(oldest) {
			oldest = o.sent
		}
	}
	if oldest.IsZero() {
		return 0
	}
	return now.Sub(oldest).Seconds()
}

// Minute is what SQS publishes for a queue over one period: counts (Sum)
// and gauges.
type Minute struct {
	Sent, Received, Deleted          float64
	Visible, NotVisible, AgeOfOldest float64
}

// Put publishes one observation of a queue at t.
func Put(ctx context.Context, cw *cloudwatch.Client, queue string, t time.Time, m Minute) error {
	dim := []cwtypes.Dimension{{Name: aws.String(cwapi.DimensionQueueName), Value: aws.String(queue)}}
	datum := func(name string, v float64, unit cwtypes.StandardUnit) cwtypes.MetricDatum {
		return cwtypes.MetricDatum{MetricName: aws.String(name), Dimensions: dim, Timestamp: aws.Time(t), Value: aws.Float64(v), Unit: unit}
	}
	_, err := cw.PutMetricData(ctx, &cloudwatch.PutMetricDataInput{Namespace: aws.String(cwapi.Namespace), MetricData: []cwtypes.MetricDatum{
		datum(cwapi.MetricMessagesSent, m.Sent, cwtypes.StandardUnitCount),
		datum(MetricReceived, m.Received, cwtypes.StandardUnitCount),
		datum(cwapi.MetricMessagesDeleted, m.Deleted, cwtypes.StandardUnitCount),
		datum(cwapi.MetricVisible, m.Visible, cwtypes.StandardUnitCount),
		datum(cwapi.MetricNotVisible, m.NotVisible, cwtypes.StandardUnitCount),
		datum(cwapi.MetricAgeOfOldest, m.AgeOfOldest, cwtypes.StandardUnitSeconds),
	}})
	if err != nil {
		return fmt.Errorf("livequeue: put metrics of %s: %w", queue, err)
	}
	return nil
}

// Backfill publishes m for every whole minute from from up to to: a steady
// history, such as a queue's traffic before an incident.
func Backfill(ctx context.Context, awsCfg aws.Config, queue string, from, to time.Time, m Minute) error {
	cw := cloudwatch.NewFromConfig(awsCfg, cwapi.ConfigureCloudWatch)
	for t := from.Truncate(time.Minute); t.Before(to); t = t.Add(time.Minute) {
		if err := Put(ctx, cw, queue, t, m); err != nil {
			return err
		}
	}
	return nil
}
