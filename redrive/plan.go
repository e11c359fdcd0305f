package redrive

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/dedupe"
	"github.com/mfdlq/mfdlq/health"
	"github.com/mfdlq/mfdlq/idempotency"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/redrive/consumer"
	"github.com/mfdlq/mfdlq/redrive/lease"
	"github.com/mfdlq/mfdlq/redrive/mover"
	"github.com/mfdlq/mfdlq/redrive/movetask"
	"github.com/mfdlq/mfdlq/redrive/place"
	"github.com/mfdlq/mfdlq/redrive/provenance"
	"github.com/mfdlq/mfdlq/redrive/sample"
	"github.com/mfdlq/mfdlq/redrive/window"
	"github.com/mfdlq/mfdlq/selection"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/transform"
)

// Request is a redrive as the operator asked for it: the flags, validated
// by the caller (cmd's options embed it: each flag is bound once, here).
// It is plain data: Resolve turns it into a Plan once, compiling what
// runs (the selection's predicate, the transform, the dedupe claims);
// Run carries the plan out. The texts (RateText, the selection …) are
// kept as given: the redrive event records them.
type Request struct {
	To     string    // --to as given ("" : the DLQ's one source, else its messages' one origin)
	Target TargetRef // --to when it names a function, topic or bus (Kind "" for a queue)

	RateText   string  // --rate as given: N or max
	Rate       float64 // messages per second; 0 = max
	Workers    int     // fixed batches in flight (0: adaptive)
	MaxWorkers int     // cap of the adaptive batches in flight

	// Selection is which messages move and how many at most (--group,
	// --filter, --sent-after, --sent-before, --max), parsed by the caller.
	selection.Selection

	Keep        bool
	NoStamp     bool // --no-stamp: no provenance attribute (package provenance)
	Native      bool
	Force       bool
	TakeOver    bool
	Fixed       string        // --fixed: the change a fix event records
	Canary      int           // -1: by destination (10 towards the messages' own source, else 0)
	CanaryWait  time.Duration // 0: derived from the destination
	MaxBacklog  int64
	MaxReturned int
	Visibility  int32  // seconds a received message stays hidden (--visibility)
	FromFile    string // --from-file as given ("" for a DLQ)
	Lease       string // --lease s3://BUCKET/PREFIX ("": the queue tag)

	// IdempotencyTable and IdempotencyWindow name the consumer's
	// idempotency store and its window outright (--idempotency-table,
	// --idempotency-window); "" and 0: found from the consumers.
	IdempotencyTable  string
	IdempotencyWindow time.Duration
	// BeyondWindow is what happens to messages that failed longer ago than
	// the window (--beyond-window): "" refuses, window.BeyondMove moves
	// them, BeyondKeep leaves them in the DLQ.
	BeyondWindow string
	// WhenOK are the alarms that must have been OK for For before the
	// move, and stay OK during it (--when-ok, health.CheckNames); a wait
	// ends after GiveUp (--for, --give-up). cmd builds the wait itself
	// (Env.WhenOK): it reads CloudWatch and draws the status line.
	WhenOK      []string
	For, GiveUp time.Duration
	// AllowAccounts (--allow-account) are the accounts outside the
	// operator's own that a replay's destinations may be in.
	AllowAccounts []string
	// TransformProgram, when set, repairs each message on its way: the jq
	// program of --transform, or the text of --transform-file read by the
	// caller; TransformOrigin names it in errors (docs/transform.md).
	TransformProgram, TransformOrigin string
	// DedupeKey is --dedupe --key's expression: the first message of each
	// key moves ("": no dedupe; docs/dedupe.md).
	DedupeKey string
}

// workers is the most batches the move may have in flight: Workers when
// fixed, else MaxWorkers. Each can leave up to ten duplicates if the
// process is killed mid-send.
func (r Request) workers() int {
	if r.Workers > 0 {
		return r.Workers
	}
	return r.MaxWorkers
}

// Plan is a redrive resolved: where the messages come from, where each
// goes, how many at most, the canary, and what the incident said about
// the attempt. It is what the operator reads before saying yes; Run
// carries out exactly this.
type Plan struct {
	Req    Request
	Source Source
	// Select is the selection compiled (Guard compiles it: --group reads
	// the incident's classification.json); never nil, it picks every
	// message for an empty selection.
	Select selection.Predicate
	// Transform is the request's program compiled (nil without one);
	// Dedupe the run's claims on idempotency keys (nil without --dedupe).
	// Resolve compiles both.
	Transform *transform.Program
	Dedupe    *dedupe.Claims
	// Dests are the destinations: one, or with PerSource one per source
	// queue of a shared DLQ, each checked (type, same queue, fix deployed,
	// canary) on its own.
	Dests []Destination
	// PerSource sends each message back to the queue it came from (its
	// DeadLetterQueueSourceArn, Destination.SourceARN): a DLQ shared by
	// several queues moved without --to. A message without a source stays.
	PerSource bool
	// Narrow, for --to on a shared DLQ, leaves in the DLQ the messages that
	// came from another queue than the destination (Guard refuses when the
	// sample holds any; --force clears it).
	Narrow bool
	// Sample is what a harmless look at a DLQ with source queues showed:
	// each source's share, under the selection once Guard has counted it.
	Sample sample.Sources
	// FileRefused are a replay's recorded sources refused before it
	// started (not a queue ARN of this partition): their lines stay in the
	// file.
	FileRefused []place.FileRefused
	// Origin says who proposed the destination when --to was omitted and
	// no queue's redrive policy names the DLQ ("" otherwise).
	Origin string
	// Backlog is the messages in the source at start; Bound the most that
	// will move.
	Backlog, Bound int
	// Canary is how many move first; CanaryWait how long the consumer gets
	// to fail them back before the rest moves.
	Canary     int
	CanaryWait time.Duration
	// Workers is the most batches in flight: a SIGKILL duplicates at most
	// ten of each (DuplicateBound).
	Workers int
	// Attempt numbers the fix this redrive moves after; NewFix tells
	// whether Req.Fixed records a fix (not the latest one again). Both are
	// set by Guard.
	Attempt int
	NewFix  bool
	// FIFODoubt, set by Guard for a native move of a FIFO DLQ, says why
	// SQS's move task could be deduplicated at the destination ("" when
	// nothing says so); Run then moves with its own mover.
	FIFODoubt string
	// Follow is the message move task already RUNNING on the DLQ that a
	// --native run follows instead of starting another (nil: none; set by
	// Guard, looked at again by Run). tasksListed says the DLQ's tasks
	// could be listed, so Run looks again after the question.
	Follow      *movetask.RunningTask
	tasksListed bool
	// reads are the guard's reads started together (guard_reads.go),
	// from Guard until CheckLease; nil reads at the moment of asking.
	reads *guardReads
	// early is the DLQ's lease being taken ahead of Run (lease_early.go);
	// nil when Run takes it.
	early *earlyLease
	// Window is the destination's idempotency store and how many of the
	// sample failed longer ago than its window (set by Guard; nil when no
	// store was found).
	Window *window.Window
}

// Source is where the messages come from: a DLQ, or an export standing in
// for one.
type Source struct {
	// Queue is the DLQ, or for --from-file a stand-in naming the file.
	Queue *sqsapi.Queue
	// File serves an export's messages in place of the DLQ (nil for a DLQ);
	// its canary looks for returns in ReturnsTo, the destination's DLQ.
	File      mover.SQS
	ReturnsTo *sqsapi.Queue
}

// Destination is where messages go: a queue, or a function, topic or bus
// (Target) that Queue then only names.
type Destination struct {
	// Queue is the destination queue; for a target a stand-in whose Name
	// is "sns:orders" and whose URL is the target's ARN (the journal's key).
	Queue  *sqsapi.Queue
	Target mover.Target
	// TargetLines describe a target for the plan.
	TargetLines []string
	// Consumers are the destination's Lambda functions as Guard read them,
	// recorded in the redrive event for the next attempt's check.
	Consumers []consumer.Function
	// SourceARN is, in a PerSource plan, the source queue whose messages
	// come here (its ARN, as DeadLetterQueueSourceArn names it); Share is
	// how many of the sample came from it.
	SourceARN string
	Share     int
}

// Dest is the plan's destination (the first of a PerSource plan).
func (p *Plan) Dest() *Destination { return &p.Dests[0] }

// DuplicateBound is the most messages a SIGKILL mid-move can send twice:
// ten per batch in flight, and never more than the move's bound.
func (p *Plan) DuplicateBound() int { return min(10*p.Workers, p.Bound) }

// Text names the destination in the line that names account and region.
func (d *Destination) Text() string {
	if d.Target == nil {
		return "queue " + d.Queue.Name
	}
	return d.Queue.Name + " (" + d.Queue.URL + ")"
}

// sizeCanary sets the bound and the canary, the one place both are
// decided: the bound is the backlog, or Max of it; the canary is what was
// asked, else 10 towards the messages' own source (whose consumer failed
// them) and none elsewhere, never more than the bound; its wait is what
// was asked, else wait.
func (p *Plan) sizeCanary(toSource bool, wait time.Duration) {
	r := p.Req
	p.Bound = p.Backlog
	if r.Max > 0 {
		p.Bound = min(r.Max, p.Backlog)
	}
	p.Canary = r.Canary
	if p.Canary < 0 {
		p.Canary = 0
		if toSource {
			p.Canary = 10
		}
	}
	p.Canary = min(p.Canary, p.Bound)
	p.CanaryWait = r.CanaryWait
	if p.CanaryWait == 0 {
		p.CanaryWait = wait
	}
}

// Env is what the protocol needs from its caller: the AWS clients, the
// clock and the incident's event stamp, and where to say things. The
// caller (cmd, or a full-screen view) renders; the protocol decides.
type Env struct {
	SQS sqsapi.Client
	// Lambda, SNS and EventBridge are built when a destination needs them.
	Lambda      func(context.Context) (LambdaClient, error)
	SNS         func(context.Context) (SNSClient, error)
	EventBridge func(context.Context) (EventsClient, error)
	// DynamoDB reads the consumer's idempotency store (nil: not read).
	DynamoDB func(context.Context) (idempotency.DynamoDB, error)
	// S3 is built for a lease kept in S3 (Req.Lease).
	S3 func(context.Context) (lease.S3, error)
	// STS tells the operator's account (a replay's destinations are
	// weighed against it).
	STS func(context.Context) (provenance.Caller, error)
	// OpenOriginals opens the archive a --transform keeps each original in
	// before its repaired copy is sent (archive.OpenOriginals).
	OpenOriginals func(path, dlqARN, run string) (Originals, error)
	// CW reads the canary's destinations' metrics (a live queue's canary
	// is judged by them); nil: none, each judged by its depth.
	CW func(context.Context) (cwapi.MetricsAPI, error)
	// Region is the region in use: queue names resolve in it.
	Region string
	Now    func() time.Time
	// NewEvent starts an incident event stamped with the clock and command.
	NewEvent func(step string, q *sqsapi.Queue) incident.Event
	// Before is where the incident stands before this redrive, as the
	// runbook reads it (runbook.StateOf(events).BeforeRedrive()).
	Before func([]incident.Event) Before
	// Operator names who runs the redrive, in the lease; OperatorARN is
	// the STS caller's ARN, in the journal's run entry and the event.
	Operator, OperatorARN string
	// Info and Warn say what the protocol saw and did.
	Info, Warn func(format string, args ...any)
	// Confirm asks a question (taking over a dead run's lease); a non-nil
	// error is the answer no.
	Confirm func(question string) error
	// Progress receives the move's figures as it goes, Done when a phase
	// (the canary, the rest, a native task) ended.
	Progress func(Moment)
	Done     func()
	// WhenOK is --when-ok's wait and watch on the dependency's alarms;
	// nil without it.
	WhenOK *health.Session
	// NoQuestion says the caller will not stop to ask before Run (--yes,
	// not a dry run): the DLQ's lease is then taken while Resolve and
	// Guard read (lease_early.go), and the caller calls DropEarlyLease
	// when Run does not follow.
	NoQuestion bool
}

// Moment is a moment of a move, for a progress line: the figures so far,
// the total it moves to and when its rate's clock started.
type Moment struct {
	mover.Stats
	Total int
	Start time.Time
}

// ErrorKind sorts the protocol's errors that are the operator's to fix, so
// that the caller maps them to its exit statuses.
type ErrorKind int

// Error kinds.
const (
	// ErrUsage is a request that cannot be carried out as given: the
	// message names the flag that fixes it. Nothing changed.
	ErrUsage ErrorKind = iota + 1
	// ErrNotFound is a destination that does not exist.
	ErrNotFound
)

// Error is an error of the protocol of a kind the caller maps.
type Error struct {
	Kind ErrorKind
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

func usagef(format string, args ...any) error {
	return &Error{Kind: ErrUsage, Err: fmt.Errorf(format, args...)}
}

func notFoundf(format string, args ...any) error {
	return &Error{Kind: ErrNotFound, Err: fmt.Errorf(format, args...)}
}

// KindOf is the kind of err (0 when it is none of the protocol's).
func KindOf(err error) ErrorKind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return 0
}

func orUnknown(s string) string {
	if s == "" {
		return "(unknown)"
	}
	return s
}
