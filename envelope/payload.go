package envelope

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/mfdlq/mfdlq/sqsjson"
)

// PayloadSHA256 is the hex SHA-256 of a message's payload as Detect finds
// it (an SNS Message, an EventBridge detail, a destination record's
// requestPayload, else the body), compacted when it is JSON. A message
// redriven to a function, topic or bus that fails again comes back to the
// DLQ with a new MessageId and, for SNS and EventBridge, a new envelope
// around the same payload: this hash is how redrive's breaker and verify
// recognise it. JSON is compacted because EventBridge re-serialises the
// detail it delivers. It lives here, below both of them, so that neither
// imports the other.
func PayloadSHA256(m *sqsjson.Message) string {
	env := Detect(m)
	return env.PayloadSHA256(m.Body)
}

// PayloadSHA256 is the package's PayloadSHA256 of the message whose body
// is body and whose envelope e is (Detect's): a caller that read the
// envelope already hashes without detecting it again.
func (e *Envelope) PayloadSHA256(body string) string {
	if e.Detached {
		// No payload to recognise a return by: the record itself is it.
		return HashPayload([]byte(body))
	}
	return HashPayload(e.Payload)
}

// HashPayload is the hex SHA-256 of payload, compacted when it is JSON:
// PayloadSHA256 of a message whose envelope holds payload (a repaired
// copy's, whose re-wrap read it back).
func HashPayload(p []byte) string {
	var buf bytes.Buffer
	if json.Compact(&buf, p) == nil { // it writes nothing unless p is valid JSON
		p = buf.Bytes()
	}
	h := sha256.Sum256(p)
	return hex.EncodeToString(h[:])
}

// ReturnSkew is how much earlier than our send a returned message's
// SentTimestamp may be and still count as a return: SQS stamps it with
// AWS's clock, the journal with ours.
const ReturnSkew = 5 * time.Second

// ArrivedAfter tells whether m reached the DLQ after a send at sentAt of
// the payload it carries: a return, not a duplicate that was in the DLQ
// before the send. Without a SentTimestamp it counts as arrived after: a
// breaker that trips too early is safer than one that never does, and
// verify would rather fail than pass on a message it cannot place.
func ArrivedAfter(m *sqsjson.Message, sentAt time.Time) bool {
	sent, ok := m.SentTime()
	return !ok || !sent.Before(sentAt.Add(-ReturnSkew))
}

// Decoded is a message's envelope, detected once, and its payload as a jq
// program sees it (`.` of --key and --transform): the redrive mover reads
// each picked message once and hands both the same, so that neither
// detects the envelope nor parses the payload again.
type Decoded struct {
	Envelope
	// Value is the payload JSON-decoded with its numbers as written
	// (json.Number: a 20-digit id stays exact, 19.990 stays 19.990), else
	// its text as a string; nil when Err says why a JSON payload did not
	// decode.
	Value any
	Err   error
}

// Decode detects m's envelope (strictly, without a --payload path) and
// decodes its payload.
func Decode(m *sqsjson.Message) Decoded {
	d := Decoded{Envelope: Detect(m)}
	if !d.PayloadJSON {
		d.Value = string(d.Payload)
		return d
	}
	dec := json.NewDecoder(bytes.NewReader(d.Payload))
	dec.UseNumber()
	var v any
	if d.Err = dec.Decode(&v); d.Err == nil {
		d.Value = v
	}
	return d
}
