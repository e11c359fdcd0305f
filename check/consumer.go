package check

import (
	"cmp"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"

	"github.com/mfdlq/mfdlq/idempotency"
	"github.com/mfdlq/mfdlq/lambdaapi"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/untrusted"
)

// The consumer's safeguards against repeating effects: a batch failing
// only its bad messages, a concurrency cap for the retry storm, an
// idempotency store that remembers long enough, and an alarm on a stuck
// source.
const (
	IDBatchItemFailures = "report-batch-item-failures"
	IDMaxConcurrency    = "mapping-maximum-concurrency"
	IDIdempotencyTTL    = "idempotency-ttl"
	IDIdempotencyWindow = "idempotency-window"
	IDSourceAgeAlarm    = "source-age-alarm"
)

// MinIdempotencyWindow is the window below which a store is warned: the
// runbook's "one hour is too little if something sits in the DLQ and gets
// reprocessed in the afternoon; 24 hours is the balance".
const MinIdempotencyWindow = 24 * time.Hour

// StoreReading is an idempotency store as check read it (idempotency.Read),
// or why it could not be read (Unread).
type StoreReading struct {
	Store  idempotency.Store
	Unread string
}

// consumerFindings are the consumer safeguards of one source: each
// mapping's batch failures and concurrency cap, each store its functions
// name, and the alarm on the source's oldest message (when read).
func consumerFindings(in CheckInput, src *sqsapi.Queue, ms []lambdaapi.Mapping) []Finding {
	var out []Finding
	seen := map[string]bool{}
	for _, m := range ms {
		out = append(out, batchFailuresFinding(src, m), concurrencyFinding(src, m))
		// Stores nil: not gathered (check --all reads no DynamoDB).
		if t := m.IdempotencyTable; t != "" && !seen[t] && in.Stores != nil {
			seen[t] = true
			out = append(out, storeFindings(in, src, m)...)
		}
	}
	if in.AgeAlarms != nil {
		alarms, known := in.AgeAlarms[src.Name]
		out = append(out, ageAlarmFinding(src, alarms, known, in.Topic, in.Notifiers))
	}
	return out
}

func batchFailuresFinding(src *sqsapi.Queue, m lambdaapi.Mapping) Finding {
	f := Finding{ID: IDBatchItemFailures, Queue: src.Name}
	switch {
	case m.ReportBatchItemFailures:
		f.Status, f.Message = Pass, m.Function+": ReportBatchItemFailures on: a bad message fails only itself"
	case m.BatchSize <= 1:
		f.Status, f.Message = Pass, m.Function+": batches of one message: a bad message fails only itself"
	default:
		f.Status = Warn
		f.Message = fmt.Sprintf("%s: no ReportBatchItemFailures with batches of up to %d: one bad message fails its whole batch, and the innocent ones are retried, their effects repeated", m.Function, m.BatchSize)
		f.Fix = fmt.Sprintf("aws lambda update-event-source-mapping --uuid %s --function-response-types ReportBatchItemFailures (the handler must then return batchItemFailures)", m.UUID)
	}
	return f
}

// MaxProvisionedConcurrency is the most concurrent invocations check
// lets a provisioned-mode mapping reach unwarned: MaximumConcurrency's
// own ceiling.
const MaxProvisionedConcurrency = 1000

func concurrencyFinding(src *sqsapi.Queue, m lambdaapi.Mapping) Finding {
	f := Finding{ID: IDMaxConcurrency, Queue: src.Name}
	if p := m.Pollers; p != nil {
		// Provisioned mode: MaximumConcurrency is refused there, and the
		// pollers are the cap (never propose what AWS rejects).
		f.Status, f.Message = Pass, fmt.Sprintf("%s: %s", m.Function, p)
		if p.MaxConcurrency() > MaxProvisionedConcurrency {
			f.Status = Warn
			f.Message += ": a redrive or a retry storm scales the consumer that far, onto the dependency that failed (MaximumConcurrency does not apply in provisioned mode)"
			f.Fix = fmt.Sprintf("aws lambda update-event-source-mapping --uuid %s --provisioned-poller-config MinimumPollers=%d,MaximumPollers=10 (each poller up to %d concurrent invocations: what the dependency bears)",
				m.UUID, min(p.Min, 10), lambdaapi.InvocationsPerPoller)
		}
		return f
	}
	if m.MaximumConcurrency != nil {
		f.Status, f.Message = Pass, fmt.Sprintf("%s: maximum concurrency %d", m.Function, *m.MaximumConcurrency)
		return f
	}
	f.Status = Warn
	f.Message = m.Function + ": no maximum concurrency: a redrive or a retry storm scales the consumer up to the account's limit, onto the dependency that failed"
	f.Fix = fmt.Sprintf("aws lambda update-event-source-mapping --uuid %s --scaling-config MaximumConcurrency=10 (2-1000: what the dependency bears)", m.UUID)
	return f
}

// storeFindings judge the store m's function names: its TTL (cleanup) and
// its window against the DLQ's oldest message and MinIdempotencyWindow.
func storeFindings(in CheckInput, src *sqsapi.Queue, m lambdaapi.Mapping) []Finding {
	table := m.IdempotencyTable
	named := fmt.Sprintf("store %s (%s's %s)", table, m.Function, m.IdempotencyVar)
	r, ok := in.Stores[table]
	if !ok || r.Unread != "" {
		why := "not read"
		if ok {
			why = r.Unread
		}
		return []Finding{{ID: IDIdempotencyTTL, Status: Warn, Queue: src.Name, Message: named + " unknown: " + why,
			Fix: fmt.Sprintf("let this role call dynamodb:DescribeTimeToLive and dynamodb:Scan on %s (docs/iam.md), then run mfdlq check again", table)}}
	}
	s := r.Store
	if ok, why := idempotency.Trusted(m.IdempotencyVar, s); !ok {
		return []Finding{{ID: IDIdempotencyWindow, Status: Skip, Queue: src.Name, Message: m.Function + ": " + untrusted.Terminal(why)}}
	}
	ttl := Finding{ID: IDIdempotencyTTL, Queue: src.Name, Status: Pass, Message: named + ": " + s.TTLText()}
	if !s.TTLOn() {
		ttl.Status = Warn
		ttl.Message += ": expired records are never deleted, the table only grows"
		ttl.Fix = fmt.Sprintf("aws dynamodb update-time-to-live --table-name %s --time-to-live-specification Enabled=true,AttributeName=%s", table, s.Expiry)
	}
	return []Finding{ttl, windowFinding(in, src, named, s)}
}

func windowFinding(in CheckInput, src *sqsapi.Queue, named string, s idempotency.Store) Finding {
	f := Finding{ID: IDIdempotencyWindow, Queue: src.Name}
	if s.Ahead == 0 {
		f.Status, f.Message = Skip, fmt.Sprintf("%s: no record of the %d looked at has a %s ahead of now: its window is not known", named, s.Looked, s.Expiry)
		return f
	}
	w := idempotency.WindowText(s.Window)
	f.Message = fmt.Sprintf("%s: window at least %s (the largest %s ahead of now among %s; a lower bound if the consumer was idle)", named, w, s.Expiry, plural.Of(s.Looked, "record"))
	fix := fmt.Sprintf("keep %s's records longer than a message can wait in %s (Powertools: expires_after_seconds=86400 or more); until then redrive with --beyond-window keep", s.Table, in.DLQ.Name)
	switch {
	case in.OldestAge > 0 && s.Window < in.OldestAge:
		f.Status, f.Fix = Fail, fix
		f.Message += fmt.Sprintf(", below the age of %s's oldest message (%s): a redrive repeats the effects of any that were partly processed", in.DLQ.Name, idempotency.WindowText(in.OldestAge))
	case s.Window < MinIdempotencyWindow:
		f.Status, f.Fix = Warn, fix
		f.Message += ", below 24h: a message that waits in the DLQ longer is no longer recognised"
	default:
		f.Status = Pass
	}
	return f
}

func ageAlarmFinding(src *sqsapi.Queue, alarms []cwtypes.MetricAlarm, known bool, topic string, notifiers map[string]string) Finding {
	f := Finding{ID: IDSourceAgeAlarm, Queue: src.Name}
	if !known {
		f.Status, f.Message = Warn, "alarms on ApproximateAgeOfOldestMessage unknown"
		f.Fix = "let this role call cloudwatch:DescribeAlarms (docs/iam.md), then run mfdlq check again"
		return f
	}
	for _, a := range alarms {
		how := notifies(a, notifiers)
		if how == "" {
			continue
		}
		f.Status, f.Message = Pass, fmt.Sprintf("alarm %s on ApproximateAgeOfOldestMessage", aws.ToString(a.AlarmName))
		if c := notifiers[aws.ToString(a.AlarmName)]; c != "" && len(a.AlarmActions) == 0 {
			f.Message += " (" + how + ")"
		}
		return f
	}
	topic = cmp.Or(topic, "TOPIC_ARN")
	f.Status = Warn
	f.Message = "no alarm with an action on ApproximateAgeOfOldestMessage: a stuck consumer is seen only when the DLQ fills"
	f.Fix = fmt.Sprintf("aws cloudwatch put-metric-alarm --alarm-name %s-oldest-message --namespace AWS/SQS --metric-name ApproximateAgeOfOldestMessage --dimensions Name=QueueName,Value=%s --statistic Maximum --period 300 --evaluation-periods 1 --threshold 900 --comparison-operator GreaterThanThreshold --alarm-actions %s", src.Name, src.Name, topic)
	return f
}
