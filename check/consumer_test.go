package check

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	"github.com/google/go-cmp/cmp"

	"github.com/mfdlq/mfdlq/idempotency"
	"github.com/mfdlq/mfdlq/lambdaapi"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// The consumer safeguards, judged from what was read: each finding's
// status, in order (the rows' exact text is pinned by check_consumer.txtar).
func TestConsumerFindings(t *testing.T) {
	dlq := &sqsapi.Queue{Name: "o-dlq"}
	src := &sqsapi.Queue{Name: "o"}
	bare := lambdaapi.Mapping{UUID: "u1", Function: "f", BatchSize: 10, IdempotencyTable: "t", IdempotencyVar: "IDEMPOTENCY_TABLE"}
	safe := lambdaapi.Mapping{UUID: "u2", Function: "g", BatchSize: 10, ReportBatchItemFailures: true, MaximumConcurrency: aws.Int32(5), IdempotencyTable: "t"}
	store := func(ttl string, w time.Duration) map[string]StoreReading {
		return map[string]StoreReading{"t": {Store: idempotency.Store{Table: "t", TTLStatus: ttl, TTLAttribute: "expiration", Expiry: "expiration", Window: w, Looked: 2, Ahead: 1}}}
	}
	alarm := cwtypes.MetricAlarm{AlarmName: aws.String("a"), AlarmActions: []string{"arn:aws:sns:us-east-1:1:x"}}
	statuses := func(fs []Finding) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.ID+"="+string(f.Status))
		}
		return out
	}
	for _, c := range []struct {
		name string
		in   CheckInput
		ms   []lambdaapi.Mapping
		want []string
	}{
		{"bare mapping, TTL off, 1h window, no age alarm", CheckInput{DLQ: dlq, Stores: store("DISABLED", time.Hour), AgeAlarms: map[string][]cwtypes.MetricAlarm{"o": nil}},
			[]lambdaapi.Mapping{bare}, []string{"report-batch-item-failures=warn", "mapping-maximum-concurrency=warn", "idempotency-ttl=warn", "idempotency-window=warn", "source-age-alarm=warn"}},
		{"safe mapping, window below the oldest message", CheckInput{DLQ: dlq, Stores: store("ENABLED", time.Hour), OldestAge: 3 * time.Hour, AgeAlarms: map[string][]cwtypes.MetricAlarm{"o": {alarm}}},
			[]lambdaapi.Mapping{safe}, []string{"report-batch-item-failures=pass", "mapping-maximum-concurrency=pass", "idempotency-ttl=pass", "idempotency-window=fail", "source-age-alarm=pass"}},
		{"48h window, store read once for two mappings, alarms unknown", CheckInput{DLQ: dlq, Stores: store("ENABLED", 48*time.Hour), OldestAge: 3 * time.Hour, AgeAlarms: map[string][]cwtypes.MetricAlarm{}},
			[]lambdaapi.Mapping{safe, safe}, []string{"report-batch-item-failures=pass", "mapping-maximum-concurrency=pass", "idempotency-ttl=pass", "idempotency-window=pass", "report-batch-item-failures=pass", "mapping-maximum-concurrency=pass", "source-age-alarm=warn"}},
		{"store unread, batch of one, alarms not gathered", CheckInput{DLQ: dlq, Stores: map[string]StoreReading{"t": {Unread: "AccessDeniedException"}}},
			[]lambdaapi.Mapping{{UUID: "u3", Function: "h", BatchSize: 1, MaximumConcurrency: aws.Int32(2), IdempotencyTable: "t"}}, []string{"report-batch-item-failures=pass", "mapping-maximum-concurrency=pass", "idempotency-ttl=warn"}},
	} {
		got := consumerFindings(c.in, src, c.ms)
		if d := cmp.Diff(c.want, statuses(got)); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, d)
		}
		for _, f := range got {
			if (f.Status == Warn || f.Status == Fail) && f.Fix == "" {
				t.Errorf("%s: %s is %s without a fix", c.name, f.ID, f.Status)
			}
		}
	}
}

// A mapping in provisioned mode has no MaximumConcurrency (Lambda refuses
// it there): check never proposes one; MaximumPollers is the cap, warned
// when it lets the consumer past MaxProvisionedConcurrency.
func TestConcurrencyInProvisionedMode(t *testing.T) {
	src := &sqsapi.Queue{Name: "orders"}
	wide := concurrencyFinding(src, lambdaapi.Mapping{UUID: "u1", Function: "f", Pollers: &lambdaapi.Pollers{Min: 2, Max: 200}})
	if wide.Status != Warn || strings.Contains(wide.Fix, "MaximumConcurrency") || !strings.Contains(wide.Fix, "--provisioned-poller-config") {
		t.Errorf("200 pollers: %+v", wide)
	}
	capped := concurrencyFinding(src, lambdaapi.Mapping{UUID: "u1", Function: "f", Pollers: &lambdaapi.Pollers{Min: 2, Max: 10}})
	if capped.Status != Pass || capped.Fix != "" || !strings.Contains(capped.Message, "provisioned mode, 2-10 pollers") {
		t.Errorf("10 pollers: %+v", capped)
	}
}
