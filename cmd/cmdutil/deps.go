package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go/logging"

	"github.com/mfdlq/mfdlq/archive"
	"github.com/mfdlq/mfdlq/fleet"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/logsearch"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/trailapi"
)

// GlobalOptions are the flags every command shares.
type GlobalOptions struct {
	Region      string // --region
	Profile     string // --profile
	EndpointURL string // --endpoint-url
	Output      string // --output table|json
	NoColor     bool   // --no-color
	Quiet       bool   // --quiet
	Incident    string // --incident
}

// Deps is what commands need, built lazily so that --help and bad flags
// load no AWS configuration and make no call.
type Deps struct {
	IO *IOStreams
	// Prompt asks every confirmation; NewDeps makes it a TerminalPrompter
	// on IO, tests and a full-screen view put their own.
	Prompt Prompter
	Now    func() time.Time
	Global *GlobalOptions
	// Args is the command line as given, recorded in the incident so the
	// report can list the exact commands that were run.
	Args []string

	AWS        func(context.Context) (aws.Config, error)
	SQS        func(context.Context) (sqsapi.Client, error)
	Logs       func(context.Context) (logsearch.Client, error)
	CloudWatch func(context.Context) (*cloudwatch.Client, error)
	Lambda     func(context.Context) (*lambda.Client, error)
	// CloudTrail reads the event history (changes); TrailPacer spaces its
	// lookups per account and region.
	CloudTrail func(context.Context) (trailapi.Client, error)
	TrailPacer func(account, region string) trailapi.Pacer
	// SNS and Events are redrive's topic and bus targets.
	SNS    func(context.Context) (*sns.Client, error)
	Events func(context.Context) (*eventbridge.Client, error)
	// STS tells whose credentials are in use (a replay's destinations are
	// weighed against that account).
	STS func(context.Context) (*sts.Client, error)
	// DynamoDB reads a consumer's idempotency store (redrive's window).
	DynamoDB func(context.Context) (*dynamodb.Client, error)

	// renames are the old flag names the command line used (sayRenamed).
	renames [][2]string

	// incidents is the incident directory chosen for each queue in this
	// process (see IncidentDir).
	incidents map[string]string
	// heldIncident, when not nil, keeps the "incident:" line an answer
	// command says last (HoldIncidentLine).
	heldIncident *[]string
	// s3 is the incident --incident s3://… names (incident_s3.go);
	// runCtx is the command's context, for its pull.
	s3     *s3Incident
	runCtx context.Context
	// S3 is the client of export and redrive --from-file with s3:// URLs.
	S3 func(context.Context) (archive.S3, error)
	// Organizations lists the organisation's accounts (--accounts all);
	// FleetSTS is the STS client that assumes a role in each account and
	// names a profile's account (fleet.Opener).
	Organizations func(context.Context) (fleet.OrganizationsAPI, error)
	FleetSTS      func(aws.Config) fleet.STSAPI
}

// onceConfig loads the AWS configuration the first time it is needed, through
// the SDK's own chain (environment, shared config, SSO, IMDS …) with the
// global flags on top.
func onceConfig(g *GlobalOptions) func(context.Context) (aws.Config, error) {
	var (
		once sync.Once
		cfg  aws.Config
		err  error
	)
	return func(ctx context.Context) (aws.Config, error) {
		once.Do(func() { cfg, err = loadConfig(ctx, g, g.Region) })
		return cfg, err
	}
}

// loadConfig loads the AWS configuration for region ("" for the chain's
// default) with the global flags on top.
func loadConfig(ctx context.Context, g *GlobalOptions, region string) (aws.Config, error) {
	var opts []func(*config.LoadOptions) error
	if region != "" {
		opts = append(opts, config.WithRegion(region))
	}
	if g.Profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(g.Profile))
	}
	if g.EndpointURL != "" {
		// --endpoint-url is every service's endpoint, like AWS_ENDPOINT_URL,
		// and wins over AWS_ENDPOINT_URL_<SERVICE> as a command-line flag
		// does: the SDK asks the load options first when it resolves a
		// service's endpoint (LoadOptions.GetServiceBaseEndpoint), the
		// service's variable only after them.
		opts = append(opts, config.WithBaseEndpoint(g.EndpointURL))
	}
	// The SDK's own log lines ("failed to discard remaining HTTP response
	// body …") would land raw in the middle of a question on stderr: mfdlq
	// says what went wrong itself, from the errors the calls return.
	opts = append(opts, config.WithLogger(logging.Nop{}))
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if g.EndpointURL != "" {
		// AWS_IGNORE_CONFIGURED_ENDPOINT_URLS drops the load options'
		// endpoint too: the flag is the operator's explicit choice.
		cfg.BaseEndpoint = aws.String(g.EndpointURL)
	}
	if err == nil && cfg.Region == "" {
		err = UsageErrorf("no AWS region: pass --region or set AWS_REGION")
	}
	return cfg, err
}

// Region is the region commands act in, once the configuration is loaded.
func (d *Deps) Region(ctx context.Context) string {
	cfg, err := d.AWS(ctx)
	if err != nil {
		return ""
	}
	return cfg.Region
}

// IncidentDir is where this incident's files go: --incident, else
// MFDLQ_INCIDENT, else the most recent incident of queue that record has
// not closed — in the per-user root (incident.DefaultRoot:
// $XDG_STATE_HOME/mfdlq/incidents, else ~/.local/state/mfdlq/incidents) or
// an existing ./incidents — else a new one in the per-user root named by
// queue and UTC start time (…/orders-dlq-20261130T2104Z). The choice is
// made once per queue and process, and said on stderr. The error says why
// no directory could be chosen: an unsafe per-user root, a failed pull of
// an S3 incident (kept too, and said when the command ends).
func (d *Deps) IncidentDir(queue string) (string, error) {
	if dir, ok := d.incidents[queue]; ok {
		return dir, nil
	}
	if dir, ok, err := d.s3IncidentPulled(); ok {
		return dir, err
	}
	dir, why, err := incident.Choose(d.Global.Incident, os.Getenv, queue, d.Now())
	if err != nil {
		return "", IncidentError(err)
	}
	if d.incidents == nil {
		d.incidents = map[string]string{}
	}
	d.incidents[queue] = dir
	if d.heldIncident != nil {
		*d.heldIncident = append(*d.heldIncident, fmt.Sprintf("incident: %s (%s)", dir, why))
	} else {
		d.Infof("incident: %s (%s)", dir, why)
	}
	if f, ok := incident.OtherOpen(os.Getenv, queue, dir, d.Now()); ok {
		d.Warnf("%s has an open incident, %s (%s): this step starts %s; pass --incident %s to continue it", queue, f.Dir, f.LastStep(), dir, f.Dir)
	}
	return dir, nil
}

// Workspace opens (creating 0700) the incident directory for queue; a new
// one in the per-user root creates that root safely first
// (incident.MakeRoot).
func (d *Deps) Workspace(queue string) (*incident.Workspace, error) {
	dir, err := d.IncidentDir(queue)
	if err != nil {
		return nil, err
	}
	if root, err := incident.DefaultRoot(os.Getenv); err == nil && filepath.Dir(filepath.Clean(dir)) == root {
		if err := incident.MakeRoot(root); err != nil {
			return nil, IncidentError(err)
		}
	}
	ws, err := incident.Open(dir)
	return ws, IncidentError(err)
}

// Event starts an incident event for step about q, stamped with the clock
// and the command line.
func (d *Deps) Event(step string, q *sqsapi.Queue) incident.Event {
	ev := incident.Event{Step: step, Time: d.Now().UTC(), Command: RecordedCommand(d.Args)}
	if q != nil {
		ev.Queue, ev.QueueURL, ev.Account, ev.Region = q.Name, q.URL, q.Account, q.Region
	}
	return ev
}

// AppendStep is how most steps end in their incident: their artifact v
// written to file, then their event about q (inputs, figures, verdict)
// naming that file.
func (d *Deps) AppendStep(ws *incident.Workspace, q *sqsapi.Queue, step, file string, v, inputs, figures any, verdict string) error {
	if err := ws.WriteJSON(file, v); err != nil {
		return err
	}
	ev := d.Event(step, q)
	if err := ev.Set(inputs, figures); err != nil {
		return err
	}
	ev.Verdict, ev.Artifact = verdict, file
	return ws.Append(ev)
}

// ResolveQueue loads the SQS client and resolves ref (a queue name, URL or
// ARN) in the region in use.
func (d *Deps) ResolveQueue(ctx context.Context, ref string) (sqsapi.Client, *sqsapi.Queue, error) {
	client, err := d.SQS(ctx)
	if err != nil {
		return nil, nil, err
	}
	q, err := sqsapi.Resolve(ctx, client, ref, d.Region(ctx))
	if errors.Is(err, sqsapi.ErrQueueNotFound) {
		if near, ok := sqsapi.Nearest(ctx, client, sqsapi.NameOf(ref)); ok {
			err = WithHint(err, fmt.Sprintf("did you mean %s? (a queue of this account and region; mfdlq ls lists them)", near))
		}
	}
	if err != nil {
		return nil, nil, err
	}
	// --queue is the DLQ for every command that resolves it here.
	if dlq, ok := sqsapi.LooksLikeSource(ctx, client, q); ok {
		d.Warnf("%s looks like a source queue, not a DLQ: no queue sends its failures to it, and its own go to %s; for the DLQ, run with --queue %s", q.Name, dlq, dlq)
	}
	return client, q, nil
}

// Clock is the time source: the system clock, or the fixed instant
// MFDLQ_NOW names (RFC 3339) so that end-to-end tests can pin output that
// states durations ("expires in 47 min") in goldens.
func Clock() func() time.Time {
	if t, err := time.Parse(time.RFC3339, os.Getenv("MFDLQ_NOW")); err == nil {
		return func() time.Time { return t.UTC() }
	}
	return func() time.Time { return time.Now().UTC() }
}

// S3Client is the S3 client of export, redrive --from-file and redrive's
// S3 lease.
func (d *Deps) S3Client(ctx context.Context) (*s3.Client, error) {
	cfg, err := d.AWS(ctx)
	if err != nil {
		return nil, err
	}
	return newS3(cfg), nil
}

// newS3 is the one S3 client constructor (Deps.S3, Deps.S3Client).
func newS3(cfg aws.Config) *s3.Client {
	return s3.NewFromConfig(cfg, func(o *s3.Options) {
		// A local endpoint (moto, MinIO) serves buckets by path, not by
		// host name: whether it came from --endpoint-url,
		// AWS_ENDPOINT_URL or AWS_ENDPOINT_URL_S3 alone, the client's
		// resolved BaseEndpoint says.
		o.UsePathStyle = o.BaseEndpoint != nil
		// A server that sends no checksum (moto, MinIO) is not worth a
		// log line on stderr; export.json records the file's own SHA-256.
		o.DisableLogOutputChecksumValidationSkipped = true
	})
}
