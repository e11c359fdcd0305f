package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sns"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/logsearch"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/vitals"
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
	IO     *IOStreams
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
	// SNS and Events are redrive's topic and bus targets.
	SNS    func(context.Context) (*sns.Client, error)
	Events func(context.Context) (*eventbridge.Client, error)
}

// NewDeps returns the production dependencies over io.
func NewDeps(io *IOStreams, args []string) *Deps {
	d := &Deps{IO: io, Now: func() time.Time { return time.Now().UTC() }, Global: &GlobalOptions{}, Args: args}
	d.AWS = onceConfig(d.Global)
	d.SQS = func(ctx context.Context) (sqsapi.Client, error) {
		cfg, err := d.AWS(ctx)
		if err != nil {
			return nil, err
		}
		return sqsapi.New(cfg), nil
	}
	d.Logs = func(ctx context.Context) (logsearch.Client, error) {
		cfg, err := d.AWS(ctx)
		if err != nil {
			return nil, err
		}
		return cloudwatchlogs.NewFromConfig(cfg), nil
	}
	d.CloudWatch = func(ctx context.Context) (*cloudwatch.Client, error) {
		cfg, err := d.AWS(ctx)
		if err != nil {
			return nil, err
		}
		return cloudwatch.NewFromConfig(cfg, vitals.ConfigureCloudWatch), nil
	}
	d.Lambda = func(ctx context.Context) (*lambda.Client, error) {
		cfg, err := d.AWS(ctx)
		if err != nil {
			return nil, err
		}
		return lambda.NewFromConfig(cfg), nil
	}
	d.SNS = func(ctx context.Context) (*sns.Client, error) {
		cfg, err := d.AWS(ctx)
		if err != nil {
			return nil, err
		}
		return sns.NewFromConfig(cfg), nil
	}
	d.Events = func(ctx context.Context) (*eventbridge.Client, error) {
		cfg, err := d.AWS(ctx)
		if err != nil {
			return nil, err
		}
		return eventbridge.NewFromConfig(cfg), nil
	}
	return d
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
		once.Do(func() {
			var opts []func(*config.LoadOptions) error
			if g.Region != "" {
				opts = append(opts, config.WithRegion(g.Region))
			}
			if g.Profile != "" {
				opts = append(opts, config.WithSharedConfigProfile(g.Profile))
			}
			if g.EndpointURL != "" {
				opts = append(opts, config.WithBaseEndpoint(g.EndpointURL))
			}
			cfg, err = config.LoadDefaultConfig(ctx, opts...)
			if err == nil && cfg.Region == "" {
				err = usageErrorf("no AWS region: pass --region or set AWS_REGION")
			}
		})
		return cfg, err
	}
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
// MFDLQ_INCIDENT, else ./incidents/<queue>-<UTC date>.
func (d *Deps) IncidentDir(queue string) string {
	if d.Global.Incident != "" {
		return d.Global.Incident
	}
	if env := os.Getenv("MFDLQ_INCIDENT"); env != "" {
		return env
	}
	return filepath.Join("incidents", fmt.Sprintf("%s-%s", queue, d.Now().UTC().Format("2006-01-02")))
}

// Workspace opens (creating 0700) the incident directory for queue.
func (d *Deps) Workspace(queue string) (*incident.Workspace, error) {
	return incident.Open(d.IncidentDir(queue))
}

// Event starts an incident event for step about q, stamped with the clock
// and the command line.
func (d *Deps) Event(step string, q *sqsapi.Queue) incident.Event {
	ev := incident.Event{Step: step, Time: d.Now().UTC(), Command: append([]string{"mfdlq"}, d.Args...)}
	if q != nil {
		ev.Queue, ev.QueueURL, ev.Account, ev.Region = q.Name, q.URL, q.Account, q.Region
	}
	return ev
}

// resolveQueue loads the SQS client and resolves ref (a queue name, URL or
// ARN) in the region in use.
func (d *Deps) resolveQueue(ctx context.Context, ref string) (sqsapi.Client, *sqsapi.Queue, error) {
	client, err := d.SQS(ctx)
	if err != nil {
		return nil, nil, err
	}
	q, err := sqsapi.Resolve(ctx, client, ref, d.Region(ctx))
	if err != nil {
		return nil, nil, err
	}
	return client, q, nil
}
