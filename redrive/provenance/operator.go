package provenance

import (
	"context"
	"fmt"

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
// ARN's partition ("" when it names none).
type Identity struct {
	Account   string
	ARN       string
	Partition string
}

// WhoAmI asks STS who the credentials are. GetCallerIdentity needs no
// permission: a failure is the credentials' own.
func WhoAmI(ctx context.Context, c Caller) (Identity, error) {
	out, err := c.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		return Identity{}, fmt.Errorf("sts GetCallerIdentity (who runs this): %w", err)
	}
	id := Identity{Account: aws.ToString(out.Account), ARN: aws.ToString(out.Arn)}
	if a, err := arn.Parse(id.ARN); err == nil {
		id.Partition = a.Partition
	}
	return id, nil
}
