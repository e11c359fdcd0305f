package classify

import (
	"bytes"
	"slices"

	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/signature"
)

// BodyErrors says which fields of a payload classify reads as the
// message's error text (signature.BodyErrorFields, and an {"Error",
// "Cause"} object under any key), and which it skips: a field the
// baseline's healthy messages have too is business data — a payment's
// failureReason — not the consumer's error.
type BodyErrors struct {
	Skip []string `json:"skip"`
	// SkipAttributes are error-ish message attributes (by name) that the
	// healthy messages carry too: not read as the error by the fallback.
	SkipAttributes []string `json:"skip_attributes,omitempty"`
}

// bodyErrorsFor is the rule a classification against b uses.
func bodyErrorsFor(b *Baseline) *BodyErrors {
	r := &BodyErrors{Skip: []string{}}
	if b == nil {
		return r
	}
	for _, f := range signature.BodyErrorFields {
		if b.KeyCounts[f] > 0 {
			r.Skip = append(r.Skip, f)
		}
	}
	// The table's payload fields and the fallback's error-ish names, when
	// healthy messages have them too.
	var extra []string
	for k, n := range b.KeyCounts {
		if n > 0 && !slices.Contains(r.Skip, k) && (errorish(k) || isPayloadSourceField(k)) {
			extra = append(extra, k)
		}
	}
	slices.Sort(extra)
	r.Skip = append(r.Skip, extra...)
	for k := range b.Attributes {
		if errorish(k) {
			r.SkipAttributes = append(r.SkipAttributes, k)
		}
	}
	slices.Sort(r.SkipAttributes)
	return r
}

// isPayloadSourceField tells a field one of errorSources' payload rows
// reads.
func isPayloadSourceField(k string) bool {
	return slices.ContainsFunc(errorSources, func(s errorSource) bool {
		return s.where == inPayload && (slices.Contains(s.typ, k) || slices.Contains(s.message, k) || slices.Contains(s.trace, k))
	})
}

// read returns the error text the payload carries (or, when --payload took
// the payload from inside an in-house envelope, the body around it) and
// the field. A nil rule reads none: classifications written before bodies
// were read group without them.
func (r *BodyErrors) read(env *envelope.Envelope, body []byte) (text, field string) {
	if r == nil {
		return "", ""
	}
	if env.PayloadJSON && env.Pointer == nil {
		if t, f := signature.InBody(env.Payload, r.skips); t != "" {
			return t, f
		}
	}
	if env.Kind == envelope.KindRaw && len(body) > 0 && len(env.Payload) != len(body) {
		return signature.InBody(bytes.Trim(body, jsonSpace), r.skips)
	}
	return "", ""
}

// skips tells a payload field the healthy messages have too.
func (r *BodyErrors) skips(field string) bool { return r != nil && slices.Contains(r.Skip, field) }
