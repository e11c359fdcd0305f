package stsdeny

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"

	"github.com/mfdlq/mfdlq/internal/localaws"
)

func TestMain(m *testing.M) { localaws.Wrap(m).Run() }

// TestDeniesOnlyWhatItIsTold: moto lets any role be assumed; through the
// proxy the denied role and every role of the denied account fail with
// STS's AccessDenied, the others still succeed (and land in their account).
func TestDeniesOnlyWhatItIsTold(t *testing.T) {
	p, err := New(localaws.Endpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	defer srv.Close()
	p.DenyRole("arn:aws:iam::111111111111:role/missing")
	p.DenyAccount("222222222222")
	c := sts.NewFromConfig(localaws.Config(t), func(o *sts.Options) { o.BaseEndpoint = aws.String(srv.URL) })
	assume := func(arn string) error {
		_, err := c.AssumeRole(context.Background(), &sts.AssumeRoleInput{RoleArn: aws.String(arn), RoleSessionName: aws.String("t")})
		return err
	}
	for _, arn := range []string{"arn:aws:iam::111111111111:role/missing", "arn:aws:iam::222222222222:role/reader"} {
		var api smithy.APIError
		err := assume(arn)
		if err == nil || !errors.As(err, &api) || api.ErrorCode() != "AccessDenied" || !strings.Contains(api.ErrorMessage(), arn) {
			t.Errorf("assume %s: %v, want AccessDenied", arn, err)
		}
	}
	if err := assume("arn:aws:iam::111111111111:role/reader"); err != nil {
		t.Errorf("an allowed role: %v", err)
	}
	if p.Denied.Load() != 2 {
		t.Errorf("%d refusals, want 2", p.Denied.Load())
	}
}
