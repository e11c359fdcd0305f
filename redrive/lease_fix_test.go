package redrive

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/redrive/provenance"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// A DLQ in another account than the credentials' cannot carry a tag lease
// whatever IAM says (SQS's tagging calls are not cross-account): the
// warning points to --lease s3://, not to IAM. In the credentials' own
// account it names the tagging permissions. The account is moto's STS
// answer, through the SDK.
func TestNoTagLeaseFix(t *testing.T) {
	ctx := context.Background()
	cfg := localaws.Config(t)
	env := &Env{STS: func(context.Context) (provenance.Caller, error) { return sts.NewFromConfig(cfg), nil }}
	other := noTagLeaseFix(ctx, env, &sqsapi.Queue{Name: "orders-dlq", Account: "999999999999"})
	if !strings.Contains(other, "--lease s3://") || !strings.Contains(other, "account 999999999999") || strings.Contains(other, "docs/iam.md") {
		t.Errorf("another account: %q", other)
	}
	own := noTagLeaseFix(ctx, env, &sqsapi.Queue{Name: "orders-dlq", Account: localaws.Account})
	if !strings.Contains(own, "sqs:TagQueue") || strings.Contains(own, "--lease s3://") {
		t.Errorf("own account: %q", own)
	}
}
