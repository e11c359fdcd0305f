package logsearch

import (
	"strings"

	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// requestIDShapes says, per envelope source, what a request id it carries
// looks like. Only Lambda's envelopes carry one — a function's DLQ message
// (its RequestID attribute) and an on-failure destination record
// (requestContext.requestId) — and Lambda gives UUIDs. A source not listed
// gives no request id mfdlq searches for: an envelope is written by
// whoever could send to the queue, and a request id of "e" or "0" would
// pick up another message's exception.
var requestIDShapes = map[envelope.Kind]func(string) bool{
	envelope.KindLambdaAsync:       looksLikeMessageID,
	envelope.KindLambdaDestination: looksLikeMessageID,
}

// RequestIDOf is the request id env carries when its shape is its
// source's; "" otherwise.
func RequestIDOf(env *envelope.Envelope) string {
	if shape, ok := requestIDShapes[env.Kind]; ok && shape(env.RequestID) {
		return env.RequestID
	}
	return ""
}

// envelopeRequestID is the Lambda request id a message's envelope
// carries, when it has its source's shape (RequestIDOf).
func envelopeRequestID(m *sqsjson.Message) string {
	if m.Body == "" && len(m.MessageAttributes) == 0 {
		return ""
	}
	env := envelope.Detect(m)
	return RequestIDOf(&env)
}

// namesRequest tells whether line names the request id as a whole token:
// not inside a longer id, so that "4f1c…-e" is not request "e" and a
// request id that is the prefix of another's is not the other's.
func namesRequest(line, id string) bool {
	if id == "" {
		return false
	}
	for rest, off := line, 0; ; {
		i := strings.Index(rest, id)
		if i < 0 {
			return false
		}
		start, end := off+i, off+i+len(id)
		if (start == 0 || !isIDByte(line[start-1])) && (end == len(line) || !isIDByte(line[end])) {
			return true
		}
		rest, off = line[start+1:], start+1
	}
}
