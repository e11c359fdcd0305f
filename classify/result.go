package classify

import (
	"cmp"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mfdlq/mfdlq/dedupe"
	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// Verdict is classify's conclusion about a group or a whole DLQ: the word
// the event, classification.json and the report record.
type Verdict string

// Verdicts of a group and of a whole DLQ.
const (
	VerdictTransient Verdict = "transient"
	VerdictPoison    Verdict = "poison"
	VerdictData      Verdict = "data"
	VerdictMixed     Verdict = "mixed"
	VerdictUnknown   Verdict = "unknown"
)

// NeedsFix tells whether a DLQ with this verdict must wait for a change to
// the consumer or the data before a redrive: moving poison or bad data back
// fails it again.
func (v Verdict) NeedsFix() bool {
	return v == VerdictPoison || v == VerdictData || v == VerdictMixed
}

// OtherGroupID is the group that takes every message past MaxGroups
// distinct keys; GroupOf sends unknown keys there when it exists.
const OtherGroupID = "other"

// Classification is classify's result: the JSON of --output json and of
// classification.json. Keys are stable; docs/classify.md documents them.
type Classification struct {
	Verdict    Verdict    `json:"verdict"`
	Messages   int        `json:"messages"`
	Confidence float64    `json:"confidence"`
	Groups     []Group    `json:"groups"`
	FirstSent  *time.Time `json:"first_sent"`
	LastSent   *time.Time `json:"last_sent"`
	Evidence   []string   `json:"evidence"`
	Duplicates Duplicates `json:"duplicates"`
	Key        *KeyCount  `json:"key,omitempty"`
	// KeyDuplicates are the messages that share an idempotency key (--key):
	// what redrive --dedupe would leave in the DLQ.
	KeyDuplicates *dedupe.Summary `json:"key_duplicates,omitempty"`
	Baseline      *Summary        `json:"baseline"`
	Expect        []string        `json:"expect"`
	Thresholds    Thresholds      `json:"thresholds"`
	// PayloadPath is the --payload path messages were read through; GroupOf
	// reads live messages through it too.
	PayloadPath string `json:"payload_path,omitempty"`
	// BodyErrors says which payload fields were read as error text; GroupOf
	// reads live messages the same way. Absent (older classifications):
	// none.
	BodyErrors *BodyErrors `json:"body_errors,omitempty"`
	// BySource says that each group's key holds its messages' source queue
	// (DeadLetterQueueSourceArn): the DLQ has several sources, by the
	// messages or by redrive policy, and a poison group from one is not
	// a transient group from another. GroupOf reads live messages' source
	// then. Absent (a single source, older classifications): keys without.
	BySource bool `json:"by_source,omitempty"`
	// Look is how this classification looked: when, how many of how many
	// in the DLQ, with how many of the consumer's errors (judgement.go).
	// Absent in older classifications.
	Look *Look `json:"look,omitempty"`
	// KeyVersion is the version of the signature rules the groups' keys
	// were made with (signature.Version): 2 keeps an HTTP status or an
	// SQLSTATE in the signature. Absent (older classifications): 1, every
	// number <n>; GroupOf reads live messages by the same rules.
	KeyVersion int `json:"key_version,omitempty"`
}

// Group is a set of messages that share a Key, with its verdict.
type Group struct {
	ID              string         `json:"id"`  // g1, g2 … by count, then key
	Key             string         `json:"key"` // Key.String(): what KeyOf returns
	Verdict         Verdict        `json:"verdict"`
	Confidence      float64        `json:"confidence"`
	Count           int            `json:"count"`
	FirstSent       time.Time      `json:"first_sent"`
	LastSent        time.Time      `json:"last_sent"`
	SentSpanSeconds int64          `json:"window_seconds"` // LastSent − FirstSent (the key from the start)
	Pattern         string         `json:"pattern"`        // burst, trickle, spread, single
	Envelope        string         `json:"envelope"`       // raw, sns, lambda-async/eventbridge …
	Fingerprint     string         `json:"fingerprint"`
	Signature       string         `json:"signature"`
	SignatureSource string         `json:"signature_source"` // logs, envelope, attributes or none
	Error           string         `json:"error"`            // one raw error text of the group
	DistinctErrors  int            `json:"distinct_errors"`  // raw error texts, capped at maxErrorTexts
	ReceiveCounts   map[string]int `json:"receive_counts"`
	Arrivals        []int          `json:"arrivals"` // per ChartColumns slice of the DLQ's whole window
	ExampleIDs      []string       `json:"example_message_ids"`
	Evidence        []string       `json:"evidence"`
	Action          string         `json:"action"`
	// Drift is how the group's payloads differ from the baseline's field
	// profile (types, enum values, nested fields); each Text is also an
	// evidence line.
	Drift []Drift `json:"drift,omitempty"`
	// SourceARN is the DeadLetterQueueSourceArn every message of the group
	// carries: the queue SQS moved them from. "" when they carry none (sent
	// to the DLQ directly, or moved by an older SQS) and in the "other"
	// group when its messages came from several.
	SourceARN string `json:"source_arn,omitempty"`
	// Source is SourceARN's queue name ("" when it is not an SQS ARN).
	Source string `json:"source,omitempty"`
	// SourceMixed: the "other" group's messages came from several sources.
	SourceMixed bool `json:"source_mixed,omitempty"`
	// ErrorFrom says where Error was read when a framework or a by-name
	// field gave it ("the MT-Fault-* attributes (MassTransit)").
	ErrorFrom string `json:"error_from,omitempty"`
	// Inferred counts the messages that carry no error of their own and
	// were given the signature the consumer's logs showed for others of
	// their fingerprint (logs.json): GroupOf puts such a live message here.
	Inferred int `json:"inferred,omitempty"`
	// DecidedBy names what decided Verdict: a typed fact of the error
	// ("SQLSTATE 42804", "AWS error code ConditionalCheckFailedException"),
	// "error text: …" for a phrase, "content" (the baseline or --expect),
	// "timing" (verified content, no error), "" for unknown. Absent in
	// older classifications.
	DecidedBy string `json:"decided_by,omitempty"`
	// Batch is the first record's stream range in a group of stream
	// on-failure records: the records to read again.
	Batch *envelope.Batch `json:"batch,omitempty"`
}

// Duplicates counts messages whose bodies repeat (at-least-once delivery).
type Duplicates struct {
	DistinctBodies int  `json:"distinct_bodies"`
	Repeated       int  `json:"repeated_messages"` // messages minus distinct bodies
	Exact          bool `json:"exact"`             // false past 65536 distinct: an estimate
}

// TopKeys is how many shared idempotency keys a classification names.
const TopKeys = 10

// KeyCount is what --key FIELD found: how many distinct business operations.
type KeyCount struct {
	Field    string `json:"field"`
	Distinct int    `json:"distinct"`
	Missing  int    `json:"missing"` // messages without the field
	Exact    bool   `json:"exact"`
}

// Summary describes the baseline that was compared against.
type Summary struct {
	Messages int                       `json:"messages"`
	Values   map[string]map[string]int `json:"values"` // schema field → value → messages
}

// Thresholds decide what is a burst and what a trickle (docs/classify.md).
type Thresholds struct {
	// BurstWindow: a group is a burst when BurstShare of it was sent within
	// this long.
	BurstWindow Duration `json:"burst_window"`
	BurstShare  float64  `json:"burst_share"`
	// TrickleSpan: a group that is not a burst is a trickle when its sends
	// span at least this long.
	TrickleSpan Duration `json:"trickle_span"`
}

// DefaultThresholds: 90% within 2 hours is a burst; 6 hours or more, not a
// burst, is a trickle.
func DefaultThresholds() Thresholds {
	return Thresholds{BurstWindow: Duration{2 * time.Hour}, BurstShare: 0.9, TrickleSpan: Duration{6 * time.Hour}}
}

// Duration is a time.Duration that reads and writes JSON as "2h0m0s".
type Duration struct{ time.Duration }

// MarshalJSON writes d as Go duration text.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON reads Go duration text.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	d.Duration = v
	return err
}

// Parse decodes a classification.json read by the caller (the incident
// reads its files without following links); name is for errors.
func Parse(b []byte, name string) (*Classification, error) {
	var c Classification
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &c, nil
}

// Group returns the group with id.
func (c *Classification) Group(id string) (*Group, bool) {
	for i := range c.Groups {
		if c.Groups[i].ID == id {
			return &c.Groups[i], true
		}
	}
	return nil, false
}

// GroupOf returns the group m falls in, deciding by its key exactly as
// classify did (through the same --payload path). A key classify never saw falls in the "other" group when
// there is one; otherwise ok is false: the message is new since classify ran.
func (c *Classification) GroupOf(m *sqsjson.Message, sigs Signatures) (*Group, bool) {
	d, _ := envelope.NewDetector(c.PayloadPath) // nil, strict, for a path that no longer parses (Load checks it first)
	k := keyWith(m, sigs, d, c.BodyErrors, max(c.KeyVersion, 1))
	if c.BySource {
		k.Source = cmp.Or(m.SourceARN(), NoSource)
	}
	key := k.String()
	for i := range c.Groups {
		if c.Groups[i].Key == key {
			return &c.Groups[i], true
		}
	}
	if k.Signature == "" {
		// A message without an error of its own falls where the logs'
		// signature of its fingerprint was inferred.
		for i := range c.Groups {
			if g := &c.Groups[i]; g.Inferred > 0 && g.Fingerprint == k.Fingerprint && (!c.BySource || g.Key == Key{k.Fingerprint, g.Signature, k.Source}.String()) {
				return g, true
			}
		}
	}
	return c.Group(OtherGroupID)
}
