package cmdutil

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/cloudtrail"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/organizations"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/mfdlq/mfdlq/archive"
	"github.com/mfdlq/mfdlq/awserr"
	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/fleet"
	"github.com/mfdlq/mfdlq/logsearch"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/trailapi"
)

// NewDeps returns the production dependencies over io. The lazy clients
// read d's own AWS, so a copy of d that sets another wires its clients
// again (WireClients).
func NewDeps(io *IOStreams, args []string) *Deps {
	d := &Deps{IO: io, Prompt: &TerminalPrompter{IO: io}, Now: Clock(), Global: &GlobalOptions{}, Args: args}
	d.AWS = onceConfig(d.Global)
	d.WireClients()
	d.TrailPacer = trailapi.PacerFor
	d.FleetSTS = func(cfg aws.Config) fleet.STSAPI { return newSTS(cfg) }
	return d
}

// WireClients builds every AWS client of d from d.AWS, lazily: a copy of
// the Deps that acts in another account (browse's steps on a fleet's DLQ)
// sets its own AWS and wires its clients again.
func (d *Deps) WireClients() {
	d.SQS = lazyClient(d, func(cfg aws.Config) sqsapi.Client { return sqsapi.New(cfg) })
	d.Logs = lazyClient(d, func(cfg aws.Config) logsearch.Client { return cloudwatchlogs.NewFromConfig(cfg) })
	d.CloudWatch = lazyClient(d, func(cfg aws.Config) *cloudwatch.Client {
		return cloudwatch.NewFromConfig(cfg, cwapi.ConfigureCloudWatch, readWholeBody)
	})
	d.CloudTrail = lazyClient(d, func(cfg aws.Config) trailapi.Client { return cloudtrail.NewFromConfig(cfg, configureCloudTrail) })
	// Organizations' endpoint is global (us-east-1 in the commercial
	// partition): --accounts all lists the organisation's accounts there.
	d.Organizations = lazyClient(d, func(cfg aws.Config) fleet.OrganizationsAPI { return organizations.NewFromConfig(cfg) })
	d.S3 = lazyClient(d, func(cfg aws.Config) archive.S3 { return newS3(cfg) })
	d.Lambda = lazyClient(d, func(cfg aws.Config) *lambda.Client { return lambda.NewFromConfig(cfg) })
	d.SNS = lazyClient(d, func(cfg aws.Config) *sns.Client { return sns.NewFromConfig(cfg) })
	d.Events = lazyClient(d, func(cfg aws.Config) *eventbridge.Client { return eventbridge.NewFromConfig(cfg) })
	d.STS = lazyClient(d, newSTS)
	d.DynamoDB = lazyClient(d, func(cfg aws.Config) *dynamodb.Client { return dynamodb.NewFromConfig(cfg) })
}

// newSTS is the one STS client constructor: the operator's identity
// (Deps.STS) and, for each account of a fleet, its role and identity
// (Deps.FleetSTS) are asked of the same client.
func newSTS(cfg aws.Config) *sts.Client { return sts.NewFromConfig(cfg) }

// readWholeBody makes a CloudWatch client read each answer whole before
// decoding it, as the SQS and CloudTrail clients do
// (sqsapi.AddReadWholeBody: the SDK's "use of closed network connection"
// on a 200, seen on DescribeAlarmHistory's pages too).
func readWholeBody(o *cloudwatch.Options) {
	o.APIOptions = append(o.APIOptions, sqsapi.AddReadWholeBody)
}

// configureCloudTrail leaves a throttled lookup to trailapi, which paces
// the calls at two a second and retries it itself (so its waits are paced
// and counted in what changes reports); the SDK still retries the rest. The
// whole body is read before decoding, as for SQS (sqsapi.AddReadWholeBody:
// the SDK's "use of closed network connection" on a streamed body, seen
// here on LookupEvents' pages too).
func configureCloudTrail(o *cloudtrail.Options) {
	o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) {
		so.Retryables = append([]retry.IsErrorRetryable{retry.IsErrorRetryableFunc(func(err error) aws.Ternary {
			if awserr.Throttled(err) {
				return aws.FalseTernary
			}
			return aws.UnknownTernary
		})}, so.Retryables...)
	})
	o.APIOptions = append(o.APIOptions, sqsapi.AddReadWholeBody)
}
