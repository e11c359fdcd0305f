package provenance

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/arn"
	"github.com/aws/aws-sdk-go-v2/service/sts"
)

// Caller tells whose credentials are in use (STS GetCallerIdentity), with
// the SDK's signature: the operator a redrive records, and the account a
// replay's destinations are weighed against.
type Caller interface {
	GetCallerIdentity(ctx context.Context, in *sts.GetCallerIdentityInput, optFns ...func(*sts.Options)) (*sts.GetCallerIdentityOutput, error)
}

var _ Caller = (*sts.Client)(nil)

// Identity is who the credentials are: their account, their ARN as
// CloudTrail names them (an assumed role's session included), and the
// partition they act in.
type Identity struct {
	Account   string
	ARN       string
	Partition string
}

// WhoAmI asks STS who the credentials are. GetCallerIdentity needs no
// permission: a failure is the credentials' own. The partition is the
// ARN's, else region's.
func WhoAmI(ctx context.Context, c Caller, region string) (Identity, error) {
	out, err := c.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		return Identity{}, fmt.Errorf("sts GetCallerIdentity (who runs this): %w", err)
	}
	id := Identity{Account: aws.ToString(out.Account), ARN: aws.ToString(out.Arn), Partition: Partition(region)}
	if a, err := arn.Parse(id.ARN); err == nil && a.Partition != "" {
		id.Partition = a.Partition
	}
	return id, nil
}

// Partition is the partition of a region, when STS's answer names none.
func Partition(region string) string {
	switch {
	case strings.HasPrefix(region, "cn-"):
		return "aws-cn"
	case strings.HasPrefix(region, "us-gov-"):
		return "aws-us-gov"
	}
	return "aws"
}
