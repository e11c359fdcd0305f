package classify

import (
	"cmp"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"slices"
	"strconv"

	"github.com/mfdlq/mfdlq/dedupe"
	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/signature"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// Bounds that keep a classification's memory fixed per group.
const (
	// DefaultMaxGroups: keys past this many go to the "other" group.
	DefaultMaxGroups = 1000
	maxErrorTexts    = 1000 // distinct raw error texts counted per group
	maxSigCache      = 4096 // error texts whose signature is remembered
	maxExampleIDs    = 3
	// ChartColumns is the length of each group's Arrivals.
	ChartColumns = 48
)

// Options steer a classification.
type Options struct {
	Baseline *Baseline     // healthy messages; nil: none
	Expect   []Expectation // what the consumer accepts
	Key      string        // --key: the business-operation field
	// Dedupe counts the messages that share an idempotency key (--key: a
	// jq expression, or .FIELD for a bare field name), compiled with the
	// payloads Envelope finds.
	Dedupe     *dedupe.Key
	Signatures Signatures // MessageId → signature, from logs.json
	Thresholds Thresholds // zero: DefaultThresholds
	Queue      string     // names the DLQ in the recommended commands
	MaxGroups  int        // zero: DefaultMaxGroups
	// Envelope reads each message's envelope (--payload); nil: strict
	// detection. The baseline must be read with the same detector.
	Envelope *envelope.Detector
	// Fetch reads an offloaded payload's object from S3 (--fetch-payloads);
	// nil: pointers are compared as pointers only. It is called once per
	// pointer message and says FetchSkipped past its own limit.
	Fetch func(envelope.Pointer) envelope.Fetched
	// BySource groups by DeadLetterQueueSourceArn even when every message
	// shows the same source: the DLQ has several source queues by redrive
	// policy, so a message from another may come later (redrive --group
	// must not take it for this group's). Without it the messages decide:
	// two sources or more among them (none counts as one) group by source.
	BySource bool
}

// Classifier takes messages one at a time and keeps memory bounded by the
// number of groups, never by the number of messages.
type Classifier struct {
	opts       Options
	watch      []string // --key first, then expFields
	expFields  []string // the distinct --expect fields
	groups     map[string]*acc
	order      []*acc
	sh         bodyScan
	env        envelope.Envelope
	buf        []byte
	sigCache   map[string]sigEntry
	errFrom    string      // where the current message's error text came from
	bodyErrs   *BodyErrors // payload fields read as error text
	prof       *profiler   // payloads against the baseline's field profile; nil without one
	inProf     *profiler   // fetched offloaded payloads, schema fields included
	shapesOnly bool        // Shapes: group by fingerprint alone
	messages   int
	first      int64
	last       int64
	bodies     distinct
	keyVals    distinct
	keyMiss    int
	tally      *dedupe.Tally // --key's idempotency keys (nil: none)
	inferred   bool          // inferFromLogs ran
	firstSrc   string        // the first message's DeadLetterQueueSourceArn
	manySrc    bool          // another message had another (or none)
}

// acc accumulates one group.
type acc struct {
	key        Key
	kind       string
	envelope   string // the envelope kind, "sns" or "lambda-async/eventbridge"
	fields     []field
	keys       []string
	n          int
	arr        arrivals
	receives   map[int]int
	errTexts   map[uint64]struct{}
	errText    string
	errFrom    string   // where errText came from: "MassTransit (MT-Fault-* headers)"
	said       *meaning // what the group's error means, once read
	secondary  int      // messages whose error chains a second one onto the first
	secondText string   // the first such second error
	fromLogs   int
	inferred   int   // messages without an error given the logs' signature of their fingerprint
	sizes      sizes // payload sizes, for a timeout's comparison
	// declared counts what a time- or memory-limited group's payloads
	// declare (rows, item_count), by field declaredNames; only with a
	// baseline that declares them too.
	declared      sizes
	declaredNames []string
	fromAttrs     int // from the attributes or the envelope
	fromEnvelope  int
	problem       string
	contrary      map[string]int    // --expect field → messages that contradict it
	seenValue     map[string]string // --expect field → a contradicting value ("" absent)
	ids           []string
	fromBody      int             // errors read from the payload's own fields
	fields2       groupFields     // the payloads' field profile against the baseline's
	schema        ceSchema        // a CloudEvent's type and dataschema
	off           *offloaded      // pointers and what --fetch-payloads read
	rejected      rejected        // values a validation error names
	batch         *envelope.Batch // a stream on-failure record's range (the first)
	source        string          // DeadLetterQueueSourceArn of the first message, "" none
	mixedSource   bool            // a later message had another: only the "other" group
}

// New returns a Classifier.
func New(opts Options) *Classifier {
	if opts.Thresholds == (Thresholds{}) {
		opts.Thresholds = DefaultThresholds()
	}
	if opts.MaxGroups <= 0 {
		opts.MaxGroups = DefaultMaxGroups
	}
	c := &Classifier{opts: opts, groups: map[string]*acc{}, sigCache: map[string]sigEntry{}}
	c.bodyErrs = bodyErrorsFor(opts.Baseline)
	if b := opts.Baseline; b != nil && b.profile != nil && len(b.profile.fields) > 0 {
		c.prof, c.inProf = newProfiler(b.profile, false), newProfiler(b.profile, true)
	}
	c.watch = append(c.watch, opts.Key)
	if opts.Dedupe != nil {
		c.tally = dedupe.NewTally(opts.Dedupe)
	}
	for _, e := range opts.Expect {
		if !slices.Contains(c.expFields, e.Field) {
			c.expFields = append(c.expFields, e.Field)
		}
	}
	c.watch = append(c.watch, c.expFields...)
	return c
}

// Add classifies one message. It fails, changing nothing, when the message
// has no SentTimestamp: classify cannot tell a burst from a trickle without.
func (c *Classifier) Add(m *sqsjson.Message) error {
	sent, err := strconv.ParseInt(m.Attributes[sqsjson.AttrSentTimestamp], 10, 64)
	if err != nil {
		return fmt.Errorf("message %s has no SentTimestamp attribute: export messages with their attributes (mfdlq inspect --out, or aws sqs receive-message --attribute-names All)", m.MessageId)
	}
	body := []byte(m.Body)
	c.env = c.opts.Envelope.DetectBody(body, m)
	c.sh.scanEnvelope(&c.env, c.watch)
	sig, src, text, val := c.signature(m, &c.env, body)
	// Every group holds one source: whether the key shows it is decided at
	// the end, when all sources are known (Result).
	srcARN := ""
	if c.shapesOnly {
		sig, src, text, val = "", "none", "", ""
	} else {
		srcARN = m.SourceARN()
	}
	g := c.groupFor(sig, srcARN)
	c.messages++
	if c.messages == 1 {
		c.first, c.last = sent, sent
		c.firstSrc = srcARN
	}
	c.manySrc = c.manySrc || srcARN != c.firstSrc
	c.first, c.last = min(c.first, sent), max(c.last, sent)
	c.bodies.addBytes(body)
	if c.opts.Key != "" {
		if c.sh.present[0] {
			c.keyVals.add(c.sh.watched[0])
		} else {
			c.keyMiss++
		}
	}
	if c.tally != nil {
		c.tally.Add(m)
	}
	g.add(m, sent, src, text, c)
	g.sizes.add(len(c.env.Payload))
	if b := c.opts.Baseline; b != nil && b.declared.n > 0 && (g.errText != "" || g.key.Signature != "") {
		if m := g.meaning(); m.fact != nil && (m.fact.timeout || m.fact.limit) {
			addDeclared(&g.declared, &g.declaredNames, &c.env)
		}
	}
	c.profile(g, val, src)
	return nil
}

// groupFor is the group of the message just scanned (c.env, c.sh) with
// signature sig from the source queue srcARN, started when new. Its map
// key (fingerprint, signature, source) is built in c.buf, so a known
// group costs no allocation.
func (c *Classifier) groupFor(sig, srcARN string) *acc {
	c.buf = fingerprint(c.buf[:0], &c.env, &c.sh, c.opts.Envelope.PayloadPath())
	fp := len(c.buf)
	c.buf = append(c.buf, " | "...)
	c.buf = append(c.buf, sig...)
	c.buf = append(c.buf, 0)
	c.buf = append(c.buf, srcARN...)
	if g, ok := c.groups[string(c.buf)]; ok {
		return g
	}
	return c.newGroup(string(c.buf), Key{Fingerprint: string(c.buf[:fp]), Signature: sig}, srcARN)
}

// sigEntry is a cached error text's signature and the value a validation
// error in it rejects.
type sigEntry struct{ sig, value string }

// signature returns m's error signature, where it came from (logs, the
// envelope, the attributes, the body or none), the raw error text when the
// message carries it, and the value a validation error rejects.
func (c *Classifier) signature(m *sqsjson.Message, env *envelope.Envelope, body []byte) (sig, source, text, value string) {
	if s, ok := c.opts.Signatures[m.MessageId]; ok && s != "" {
		return s, "logs", "", ""
	}
	r := errorOf(m, env, body, c.bodyErrs)
	text, source, c.errFrom = r.text, r.source, r.from
	if text == "" {
		return "", "none", "", ""
	}
	if e, ok := c.sigCache[text]; ok {
		return e.sig, source, text, e.value
	}
	e := sigEntry{signature.Of(text), signature.ValueOf(text)}
	if len(c.sigCache) < maxSigCache {
		c.sigCache[text] = e
	}
	return e.sig, source, text, e.value
}

// newGroup starts the group of key k (id: its map key, k and the source)
// with the current message, or returns the "other" group past MaxGroups.
func (c *Classifier) newGroup(id string, k Key, source string) *acc {
	if len(c.groups) >= c.opts.MaxGroups {
		k = Key{Fingerprint: OtherGroupID}
		id = k.String()
		if g, ok := c.groups[id]; ok {
			return g
		}
	}
	g := &acc{key: k, source: source, kind: c.sh.kind, envelope: envelopeName(&c.env), receives: map[int]int{},
		errTexts: map[uint64]struct{}{}, contrary: map[string]int{}, seenValue: map[string]string{},
		schema: ceSchema{c.env.EventType, c.env.DataSchema}}
	if b := c.env.Batch; b != nil {
		cp := *b
		g.batch = &cp
	}
	if p := c.env.Pointer; p != nil {
		g.off = &offloaded{bucket: p.Bucket, status: map[envelope.FetchStatus]int{}}
	}
	if g.kind == FingerprintUnparseable {
		g.problem = jsonProblem(c.sh.raw) // once per group: it is slow
	}
	g.fields = append(g.fields, c.sh.fields...)
	for _, k := range c.sh.keys {
		g.keys = append(g.keys, string(k))
	}
	c.groups[id] = g
	c.order = append(c.order, g)
	return g
}

func (g *acc) add(m *sqsjson.Message, sent int64, src, text string, c *Classifier) {
	g.n++
	if !c.shapesOnly && m.SourceARN() != g.source {
		g.mixedSource = true
	}
	g.arr.add(sent)
	if n, ok := m.ReceiveCount(); ok {
		g.receives[n]++
	}
	switch src {
	case "logs":
		g.fromLogs++
	case "attributes", "envelope", "body":
		g.fromAttrs++
		switch src {
		case "envelope":
			g.fromEnvelope++
		case "body":
			g.fromBody++
		}
		if g.errText == "" {
			g.errText, g.errFrom = text, c.errFrom
		}
		if _, outer := signature.Chain(text); outer != "" {
			g.secondary++
			if g.secondText == "" {
				g.secondText = outer
			}
		}
		if len(g.errTexts) < maxErrorTexts {
			g.errTexts[hashString(text)] = struct{}{}
		}
	}
	for i, f := range c.expFields {
		w := i + 1
		if !c.expected(f, w) {
			g.contrary[f]++
			if _, ok := g.seenValue[f]; !ok {
				g.seenValue[f] = c.sh.watched[w]
			}
		}
	}
	if len(g.ids) < maxExampleIDs {
		g.ids = append(g.ids, m.MessageId)
	}
}

// expected tells whether the current body's field (watched slot w) has one
// of the values --expect allows for it.
func (c *Classifier) expected(field string, w int) bool {
	if !c.sh.present[w] {
		return false
	}
	return slices.ContainsFunc(c.opts.Expect, func(e Expectation) bool { return e.Field == field && e.Value == c.sh.watched[w] })
}

// Run classifies every message of r (JSON Lines or a {"Messages": [...]}
// document), streaming. A bad record fails the whole run with a
// *sqsjson.LineError naming its line: no partial verdict.
func Run(r io.Reader, opts Options) (*Classification, error) {
	rd, err := sqsjson.NewReader(r)
	if err != nil {
		return nil, err
	}
	c := New(opts)
	for {
		m, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return c.Result(), nil
		}
		if err != nil {
			return nil, err
		}
		if err := c.Add(m); err != nil {
			return nil, &sqsjson.LineError{Line: rd.Line(), Err: err}
		}
	}
}

func hashString(s string) uint64 { return maphash.String(hashSeed, s) }

// meaning is what the group's error says (its first raw text, else its
// signature), read once.
func (g *acc) meaning() meaning {
	if g.said == nil {
		m := meaningOf(cmp.Or(g.errText, g.key.Signature))
		g.said = &m
	}
	return *g.said
}
