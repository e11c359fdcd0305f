package classify

import (
	"strings"

	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/signature"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// FingerprintNoPayload is the shape of a message in which --payload found
// nothing.
const FingerprintNoPayload = "no-payload"

// FingerprintInStream is the shape of a stream on-failure record: it names
// a shard and a sequence range, and the records stay in the stream.
const FingerprintInStream = "records-in-stream"

// scanEnvelope reads the envelope's payload into s: the schema-naming
// fields, --key and --expect are looked for in the payload, never in the
// envelope around it.
func (s *bodyScan) scanEnvelope(env *envelope.Envelope, watch []string) {
	switch {
	case env.Problem != "":
		s.scanKnown(nil, false, watch)
		s.kind = FingerprintNoPayload
		return
	case env.Detached:
		s.scanKnown(nil, false, watch)
		s.kind = FingerprintInStream
		return
	}
	s.scanKnown(env.Payload, env.PayloadJSON, watch)
}

// fingerprint writes a message's fingerprint to buf: the envelope (none for
// a raw body, so the fingerprints of bare messages stay what they were),
// the schema the envelope itself names (an event's source and detail-type,
// an S3 event's version), then the payload's own (bodyScan.fingerprint), e.g.
// "sns: version=2 {customer,order_id,version}" or
// "eventbridge: source=orders detail-type=OrderPlaced version=2 {…}".
func fingerprint(buf []byte, env *envelope.Envelope, s *bodyScan, path string) []byte {
	if env.Kind != envelope.KindRaw || path != "" {
		buf = append(buf, env.Kind...)
		if env.Wraps != "" {
			buf = append(buf, '/')
			buf = append(buf, env.Wraps...)
		}
		if path != "" {
			buf = append(buf, ' ')
			buf = append(buf, path...)
		}
		buf = append(buf, ": "...)
	}
	if env.Source != "" || env.DetailType != "" {
		buf = append(buf, "source="...)
		buf = append(buf, env.Source...)
		buf = append(buf, " detail-type="...)
		buf = append(buf, env.DetailType...)
		buf = append(buf, ' ')
	}
	if b := env.Batch; b != nil {
		buf = append(buf, "source="...)
		buf = append(buf, b.Source...)
		buf = append(buf, " stream="...)
		buf = append(buf, streamName(b.Stream)...)
		buf = append(buf, ' ')
	}
	if env.EventVersion != "" {
		buf = append(buf, "eventVersion="...)
		buf = append(buf, env.EventVersion...)
		buf = append(buf, ' ')
	}
	buf = schemaFingerprint(buf, env)
	return s.fingerprint(buf)
}

// envelopeName is the envelope a group's messages share: "sns", or
// "lambda-async/eventbridge" for a document inside a Lambda DLQ message.
func envelopeName(env *envelope.Envelope) string {
	if env.Wraps != "" {
		return string(env.Kind) + "/" + string(env.Wraps)
	}
	return string(env.Kind)
}

// keyWith is KeyOf through the detector d, reading the payload error
// fields rule allows with the signature rules of version; the logs'
// signature wins, as in Classifier.signature (without its cache).
func keyWith(m *sqsjson.Message, sigs Signatures, d *envelope.Detector, rule *BodyErrors, version int) Key {
	body := []byte(m.Body)
	env := d.DetectBody(body, m)
	k := Key{Fingerprint: FingerprintOf(&env, d), Signature: sigs[m.MessageId]}
	if k.Signature == "" {
		k.Signature = signature.OfVersion(errorOf(m, &env, body, rule).text, version)
	}
	return k
}

// FingerprintOf is the fingerprint classify gives a message whose envelope
// d read as env: what inspect shows beside each message.
func FingerprintOf(env *envelope.Envelope, d *envelope.Detector) string {
	var s bodyScan
	s.scanEnvelope(env, nil)
	return string(fingerprint(nil, env, &s, d.PayloadPath()))
}

// streamName is a stream ARN's name: "orders" of
// arn:aws:kinesis:…:stream/orders, the table of a DynamoDB stream's
// arn:aws:dynamodb:…:table/orders/stream/2024-….
func streamName(arn string) string {
	_, rest, ok := strings.Cut(arn, ":stream/")
	if ok {
		return rest
	}
	if _, rest, ok = strings.Cut(arn, ":table/"); ok {
		name, _, _ := strings.Cut(rest, "/")
		return name
	}
	return arn
}
