// Package livequeue makes a local queue live for tests: a producer and a
// consumer run on it while mfdlq works, as on a busy account, and the
// AWS/SQS metrics that SQS would publish for it — moto publishes none — go
// into moto's CloudWatch from what the harness observed. contain, verify,
// ls and the canary are tested against traffic and metrics this way.
//
// What it publishes, each Tick, stamped with the time of the tick (several
// points in one minute add up under Sum and average under Average, as
// CloudWatch aggregates a minute's points):
//   - NumberOfMessagesSent: its own producer's sends, each in the minute
//     it fell due (the producer keeps its rate when the emulator is slow,
//     catching up in batches), plus each message of somebody else's (a
//     redrive's) in the minute of its SentTimestamp, published once the
//     consumer first sees it;
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
	// start is when the producer's schedule began: its i-th send falls
	// due at start + i/Rate.
	start time.Time

	mu          sync.Mutex
	stats       Stats
	outstanding map[string]outstanding // MessageId → what the age metric needs
	deleted     map[string]bool        // MessageIds the consumer deleted
	// sent counts sends by the minute SQS would count them in: the
	// producer's at the moment each fell due, somebody else's at its
	// SentTimestamp.
	sent       map[time.Time]int
	recvDelta  int
	delDelta   int
	publishErr error
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
		outstanding: map[string]outstanding{}, deleted: map[string]bool{}, sent: map[time.Time]int{}}
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
	l.start = time.Now()
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

// Started is when the traffic began: a history published for the time
// before it (Backfill, and the running minute's part) meets the
// producer's first send with no gap.
func (l *Live) Started() time.Time { return l.start }

// Stats are the counts so far.
func (l *Live) Stats() Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stats
}

func (l *Live) produce(ctx context.Context) {
	defer l.wg.Done()
	every := time.Duration(float64(time.Second) / l.cfg.Rate)
	start := l.start
	for i := 0; ; {
		due := start.Add(time.Duration(i) * every)
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Until(due)):
		}
		// A producer at Rate does not slow down when the queue's server
		// does: every send that fell due while the last call ran goes now,
		// up to a batch, and is counted at the moment it fell due, so each
		// minute's NumberOfMessagesSent is the producer's rate however
		// loaded the emulator is.
		n := min(maxBatch, 1+int(time.Since(due)/every))
		sent := l.sendBatch(ctx, i, n)
		l.mu.Lock()
		for k, id := range sent {
			at := start.Add(time.Duration(i+k) * every)
			l.stats.Produced++
			l.sent[at.Truncate(time.Minute)]++
			// The consumer may have received it already (and deleted
			// it) while this send's answer was on its way.
			if !l.deleted[id] {
				o := l.outstanding[id]
				o.sent = at
				l.outstanding[id] = o
			}
		}
		l.mu.Unlock()
		i += len(sent)
		if len(sent) == 0 {
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
}

// producerMark is the message attribute that tells the consumer a message
// is its own producer's: the consumer can receive it before the
// producer's send has returned its MessageId, and must not count it as
// somebody else's send.
const producerMark = "livequeue-producer"

// maxBatch is SendMessageBatch's and DeleteMessageBatch's limit.
const maxBatch = 10

// sendBatch sends the producer's bodies i … i+n-1 and returns the ids SQS
// took, in order; it stops at the first one refused, which is sent again
// next time. Not cancelled midway: a send SQS took but whose answer was
// lost to Stop would be in the queue and not in the counts.
func (l *Live) sendBatch(ctx context.Context, i, n int) []string {
	entries := make([]types.SendMessageBatchRequestEntry, n)
	for k := range entries {
		entries[k] = types.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(k)), MessageBody: aws.String(l.cfg.Body(i + k)),
			MessageAttributes: map[string]types.MessageAttributeValue{producerMark: {DataType: aws.String("String"), StringValue: aws.String("1")}}}
	}
	out, err := l.sqs.SendMessageBatch(context.WithoutCancel(ctx), &sqs.SendMessageBatchInput{QueueUrl: aws.String(l.cfg.QueueURL), Entries: entries})
	if err != nil {
		return nil
	}
	ids := make([]string, n)
	for _, e := range out.Successful {
		k, _ := strconv.Atoi(aws.ToString(e.Id))
		ids[k] = aws.ToString(e.MessageId)
	}
	for k, id := range ids {
		if id == "" {
			return ids[:k]
		}
	}
	return ids
}

func (l *Live) consume(ctx context.Context) {
	defer l.wg.Done()
	for ctx.Err() == nil {
		out, err := l.sqs.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(l.cfg.QueueURL), MaxNumberOfMessages: 10,
			WaitTimeSeconds: 1, MessageSystemAttributeNames: []types.MessageSystemAttributeName{"All"}, MessageAttributeNames: []string{producerMark}})
		if err != nil {
			if ctx.Err() == nil {
				time.Sleep(100 * time.Millisecond)
			}
			continue
		}
		l.handle(ctx, out.Messages)
	}
}

// handle processes one receive's messages and deletes the done ones in
// one batch, as a Lambda consumer's poller does.
func (l *Live) handle(ctx context.Context, msgs []types.Message) {
	var done []types.DeleteMessageBatchRequestEntry
	byEntry := map[string]string{}
	for _, m := range msgs {
		if !l.received(m) {
			continue
		}
		k := strconv.Itoa(len(done))
		done = append(done, types.DeleteMessageBatchRequestEntry{Id: aws.String(k), ReceiptHandle: m.ReceiptHandle})
		byEntry[k] = aws.ToString(m.MessageId)
	}
	if len(done) == 0 {
		return
	}
	out, err := l.sqs.DeleteMessageBatch(context.WithoutCancel(ctx), &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(l.cfg.QueueURL), Entries: done})
	if err != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, e := range out.Successful {
		id := byEntry[aws.ToString(e.Id)]
		l.stats.Deleted++
		l.delDelta++
		l.deleted[id] = true
		delete(l.outstanding, id)
	}
}

// received counts one received message and tells whether the consumer
// is done with it (to be deleted) or failed it.
func (l *Live) received(m types.Message) bool {
	id := aws.ToString(m.MessageId)
	l.mu.Lock()
	l.stats.Received++
	l.recvDelta++
	o, known := l.outstanding[id]
	if !known {
		o.sent = time.Now()
		if ms, err := strconv.ParseInt(m.Attributes["SentTimestamp"], 10, 64); err == nil {
			o.sent = time.UnixMilli(ms)
		}
		if _, own := m.MessageAttributes[producerMark]; !own {
			// Somebody else's message: SQS counted its send when it
			// was sent; so do we, in that minute, now that we know of
			// it.
			l.stats.Foreign++
			l.sent[o.sent.Truncate(time.Minute)]++
		}
	}
	o.receives++
	l.outstanding[id] = o
	l.mu.Unlock()
	if l.cfg.Handle != nil && !l.cfg.Handle(m) {
		l.mu.Lock()
		l.stats.Failed++
		l.mu.Unlock()
		return false
	}
	return true
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
	minute := now.Truncate(time.Minute)
	m := Minute{Sent: float64(l.sent[minute]), Received: float64(l.recvDelta), Deleted: float64(l.delDelta),
		Visible: visible, NotVisible: notVisible, AgeOfOldest: l.ageOfOldest(now)}
	delete(l.sent, minute)
	earlier := l.sent
	l.sent = map[time.Time]int{}
	l.recvDelta, l.delDelta = 0, 0
	l.mu.Unlock()
	err = Put(ctx, l.cw, l.name, now, m)
	for at, n := range earlier {
		if err == nil {
			err = putSent(ctx, l.cw, l.name, at, float64(n))
		}
	}
	if err != nil {
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

// putSent publishes n sends counted in the minute at t: sends that the
// harness learnt of after that minute's tick (somebody else's message,
// seen when the consumer received it).
func putSent(ctx context.Context, cw *cloudwatch.Client, queue string, t time.Time, n float64) error {
	_, err := cw.PutMetricData(ctx, &cloudwatch.PutMetricDataInput{Namespace: aws.String(cwapi.Namespace), MetricData: []cwtypes.MetricDatum{{
		MetricName: aws.String(cwapi.MetricMessagesSent), Timestamp: aws.Time(t), Value: aws.Float64(n), Unit: cwtypes.StandardUnitCount,
		Dimensions: []cwtypes.Dimension{{Name: aws.String(cwapi.DimensionQueueName), Value: aws.String(queue)}},
	}}})
	if err != nil {
		return fmt.Errorf("livequeue: put sends of %s: %w", queue, err)
	}
	return nil
}
