package classify

import (
	"regexp"
	"strings"

	"github.com/mfdlq/mfdlq/signature"
)

// meaning is what an error text says about its failure: a verdict, the
// words of the text that say it, and the row of errorMeanings that read
// them.
type meaning struct {
	verdict Verdict // "" when the text says nothing clear
	words   string  // as they appear in the normalised text, e.g. "timed out"
	kind    string  // the row: "timeout", "payment decline" …
	why     string  // what that kind of error means, for the evidence
	wait    bool    // retry, but with more wait (throttling)
	// fact is the typed fact that decided ("SQLSTATE 42804"); nil when a
	// phrase of errorMeanings did.
	fact *fact
}

// missingRow tells a meaning that the message names a row that does not
// exist: a new business value is then no contract change.
func (m meaning) missingRow() bool {
	return m.verdict == VerdictData && (m.kind == "missing referenced row" || m.fact != nil && m.fact.missing)
}

// errorMeaning is one row of errorMeanings.
type errorMeaning struct {
	kind    string
	verdict Verdict
	why     string
	wait    bool
	re      *regexp.Regexp
}

// errorMeanings is the one table of what an error means, documented row by
// row in docs/classify.md. Rows are tried in order and the first with a
// match wins, so the specific comes before the general: a decline the
// issuer says to retry (processing_error) before a decline; any decline
// (card_velocity_exceeded, insufficient_funds) before a limit or a
// throttle; a text that blames the message's shape ("ValidationError:
// unsupported version 2") before everything that follows; a failing
// dependency ("customer service unavailable") or a missing target
// (NoSuchBucket, ResourceNotFoundException) before a missing record.
// Phrases match whole words of the normalised text (lowercase, CamelCase
// split, punctuation as spaces), so "CustomerNotFound" reads "customer not
// found" and "insufficient_funds" reads "insufficient funds".
var errorMeanings = []errorMeaning{
	{"decline the issuer asks to retry", VerdictTransient, "the card issuer could not answer this time and asks for a retry later: the payment itself may be fine", true, phrases(
		`processing error`, `issuer (not available|unavailable)`, `try again later`, `reenter transaction`, `acquirer error`)},
	{"payment decline", VerdictData, "a payment decline is permanent for this customer's card: neither a redrive nor a code fix helps — the customer must pay another way (or the order be cancelled)", false, phrases(
		`(card|payment|transaction|charge|authori[sz]ation) (was |has been |is )?(declined|refused|rejected)`, `declined by (the )?(issuer|bank)`,
		`(processor|issuer|bank) declined`, `call issuer`, `invalid credit card`, `card not activated`,
		`(generic|hard|soft) decline`, `insufficient (funds|balance)`, `not sufficient funds`, `not enough balance`,
		`expired card`, `card (has )?expired`, `lost card`, `stolen card`, `lost or stolen`, `pick ?up card`, `do not hono(u)?r`,
		`(incorrect|invalid|wrong) (cvc|cvv|cvc2|cvv2|security code|pin|zip|expiry( (month|year|date))?|card number|number)`,
		`cvc (check )?(failed|declined)`, `fraudulent`, `restricted card`, `card (not supported|blocked)`, `blocked card`,
		`card velocity exceeded`, `withdrawal count limit exceeded`, `do not try again`, `transaction not (allowed|permitted)`,
		`invalid account`, `account closed`, `stop payment order`, `revocation of (all )?authori[sz]ations?`)},
	{"code or contract", VerdictPoison, "the consumer cannot read the message as it is", false, phrases(
		`deserializ\w*`, `unmarshal\w*`, `(cannot|can not|could not|couldn t|failed to|unable to) (parse|decode|deserialize|convert)`,
		`parse (error|exception|failure)`, `json (decode|parse|syntax|reader)\w*`, `invalid json`, `malformed`, `syntax error`,
		`unexpected (token|end of json|character|eof)`, `(unknown|unsupported|unrecognized|invalid) (schema )?version`,
		`version \S+ (is )?not supported`, `schema\w*`, `type error`, `class cast`, `invalid cast`, `cannot read propert\w*`,
		`unrecognized (field|property)`, `no such (field|property|method)`, `null pointer`, `nil pointer`, `null reference`,
		`object reference not set`, `is not a function`, `undefined method`, `no method error`, `attribute error`,
		`number format`, `format exception`, `(illegal|invalid) base64`, `unicode decode`, `message conversion`,
		`unsupported (media type|content type|message type|event type|format|encoding)`,
		`unknown (message|event|command) type`, `no handler (registered |found )?for`,
		`not (a )?valid (json|xml|utf 8|base64|avro|protobuf)`, `(could|can) ?not be (parsed|decoded|deserialized|deserialised|interpreted|read)`,
		`(cannot|can not|could not|couldn t|failed to|unable to) (read|interpret|understand|decode) (the |this )?(payload|body|message|event|json|record|document)`,
		`unreadable`, `not well formed`, `(payload|body|message|event) (is )?(malformed|corrupt\w*|truncated|garbled)`,
		`invalid (payload|body|message|event) (format|encoding|structure)`, `unexpected (format|structure|payload shape)`,
		`decod(e|ing) (error|failure|failed)`, `deseriali[sz]ation`, `unmarshall?ing`)},
	{"throttling", VerdictTransient, "a dependency throttled the consumer: retryable, with more wait — redrive slower than the consumer was fed", true, phrases(
		`throttl\w*`, `too many requests`, `rate exceeded`, `rate limit\w*`, `slow down`, `request limit exceeded`,
		`(limit|throughput|capacity|quota) exceeded`, `(http|status|status code|code|error|returned|response)( is| was| of)? 429`, `429 too many`,
		`concurrency limit`, `reserved concurrency`, `resource exhausted`)},
	{"expired while waiting", VerdictTransient, "the event waited past its maximum age before it could be processed (the function was throttled or failing for that long): retryable, with more wait", true, phrases(
		`event age exceeded`, `record age exceeded`, `maximum (event|record) age`)},
	{"dependency unavailable", VerdictTransient, "a dependency failed or could not be reached; the message itself may be fine", false, phrases(
		`unavailable`, `temporar\w*`, `try again`, `circuit (breaker )?(is )?open`, `deadlock\w*`, `lock wait`,
		`could not serialize access`, `database is locked`, `too many (connections|clients)`, `pool (is )?exhausted`, `service is down`,
		`closed the connection`, `system is (starting up|shutting down)`, `internal (failure|error)`)},
	{"timeout", VerdictTransient, "a dependency failed or could not be reached; the message itself may be fine", false, phrases(
		`timed out`, `time ?outs?`, `deadline exceeded`, `etimedout`, `gateway time ?out`, `(http|status|status code|code|error|returned|response)( is| was| of)? 408`)},
	{"server error (5xx)", VerdictTransient, "a dependency failed or could not be reached; the message itself may be fine", false, phrases(
		`internal server error`, `server error`, `service exception`, `bad gateway`, `(http|status|status code|code|error|returned|response)( is| was| of)? 5\d\d`,
		`5\d\d (internal|bad|service|gateway)`)},
	{"connection error", VerdictTransient, "a dependency failed or could not be reached; the message itself may be fine", false, phrases(
		`connection (refused|reset|closed|timed out|aborted|lost|error|failure|failed)`, `econnrefused`, `econnreset`,
		`ehostunreach`, `enotfound`, `eai again`, `broken pipe`, `socket hang up`, `network (error|is unreachable|unreachable)`,
		`no route to host`, `(could not|unable to|failed to|cannot) connect`, `name resolution`)},
	// A missing target or permission (EventBridge's NO_RESOURCE,
	// NO_PERMISSIONS, a DynamoDB ResourceNotFoundException, an IoT rule's
	// NoSuchBucket) is the infrastructure's fault, not the message's: fix
	// it, then redrive.
	{"missing target or permission", VerdictTransient, "a target or a permission of the consumer is missing — the infrastructure's fault, not the message's: fix it, then redrive", false, phrases(
		`resource not found`, `no resource`, `no permissions?`, `(access|permission) (was |is )?denied`, `(not |un)authori[sz]ed`, `unauthenticated`, `forbidden`,
		`no such bucket`, `(specified )?bucket does not exist`, `(queue|topic|stream|function) (\S+ )?(does not exist|not found)`,
		`non existent queue`, `function not found`, `expired token`, `security token`, `invalid client token`,
		`signature does not match`, `unrecognized client`, `(http|status|status code|code|error|returned|response)( is| was| of)? 40[13]`)},
	{"missing referenced row", VerdictData, "the message refers to a row that does not exist (yet): fix or import the rows it names, then redrive", false, phrases(
		`foreign key`, `fk constraint`, `not found`, `couldn t find`, `could not find`, `is not present in table`, `does not exist`, `no such \w+`, `no (query )?results? (for|found)`, `no rows?`,
		`unknown (customer|account|user|sku|product|item|location|warehouse|tenant|site|store|shop|merchant|order|address)`,
		`(http|status|status code|code|error|returned|response)( is| was| of)? (404|410)`)},
	{"constraint or duplicate", VerdictData, "the message breaks a rule of the data (a constraint, a duplicate): correct the data", false, phrases(
		`constraint\w*`, `violat\w*`, `duplicate (key|entry|record)`, `already exists`, `unique (key|index)`, `integrity error`,
		`(http|status|status code|code|error|returned|response)( is| was| of)? 409`)},
	{"validation", VerdictData, "the message's values fail the consumer's validation: correct the data", false, phrases(
		`validation\w*`, `invalid [a-z_]+`, `insufficient \w+`, `out of stock`, `out of range`, `bad request`, `unprocessable`,
		`is required`, `must be`, `(http|status|status code|code|error|returned|response)( is| was| of)? (400|422)`)},
}

func phrases(ps ...string) *regexp.Regexp {
	return regexp.MustCompile(`\b(` + strings.Join(ps, "|") + `)\b`)
}

// maxMeaningLines bounds the lines of a multi-line error read for its class.
const maxMeaningLines = 40

// meaningOf reads an error text (or, lacking one, a signature): a typed
// fact first (factOf: a code of a cited taxonomy, in any language), then
// the phrases of errorMeanings (phraseMeaningOf).
func meaningOf(text string) meaning {
	if f, ok := factOf(text); ok {
		return meaning{verdict: f.verdict, words: f.taxonomy + " " + f.code, kind: f.taxonomy, why: f.class, wait: f.wait, fact: &f}
	}
	return phraseMeaningOf(text)
}

// phraseMeaningOf reads an error text by its words, the fallback when it
// holds no typed fact: its headline first, then, when that says nothing
// clear, every other line of a multi-line text — the class may be on any
// line (a banner first, the exception after).
func phraseMeaningOf(text string) meaning {
	if m := classOf(normalise(signature.Headline(text))); m.verdict != "" {
		return m
	}
	lines := strings.SplitN(text, "\n", maxMeaningLines+1)
	if len(lines) < 2 {
		return meaning{}
	}
	for _, l := range lines[:min(len(lines), maxMeaningLines)] {
		if m := classOf(normalise(l)); m.verdict != "" {
			return m
		}
	}
	return meaning{}
}

func classOf(n string) meaning {
	if n == "" {
		return meaning{}
	}
	for _, c := range errorMeanings {
		if w := c.re.FindString(n); w != "" {
			return meaning{verdict: c.verdict, words: w, kind: c.kind, why: c.why, wait: c.wait}
		}
	}
	return meaning{}
}

// normalise lowercases text, splits CamelCase words and turns punctuation
// into spaces: "CustomerNotFound: id C-1" → "customer not found id c 1".
func normalise(text string) string {
	var b strings.Builder
	b.Grow(len(text) + 8)
	space := true
	for i := 0; i < len(text); i++ {
		c := text[i]
		lower := c >= 'a' && c <= 'z'
		upper := c >= 'A' && c <= 'Z'
		digit := c >= '0' && c <= '9'
		switch {
		case upper:
			// A new word at a lower→Upper step, or at the last capital of
			// an acronym: "HTTPError" → "http error".
			if i > 0 && !space && (isLower(text[i-1]) || i+1 < len(text) && isLower(text[i+1]) && isUpper(text[i-1])) {
				b.WriteByte(' ')
			}
			b.WriteByte(c + 'a' - 'A')
			space = false
		case lower, digit, c >= 0x80:
			b.WriteByte(c)
			space = false
		case !space:
			b.WriteByte(' ')
			space = true
		}
	}
	return strings.TrimSpace(b.String())
}

func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
