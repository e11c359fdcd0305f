package provenance

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/mfdlq/mfdlq/internal/localaws"
)

// TestMain starts the local AWS only for the test that asks STS.
func TestMain(m *testing.M) { os.Exit(localaws.Wrap(m).Run()) }

// WhoAmI reads the caller's ARN and account through the SDK.
func TestWhoAmI(t *testing.T) {
	id, err := WhoAmI(context.Background(), sts.NewFromConfig(localaws.Config(t)))
	if err != nil {
		t.Fatal(err)
	}
	if id.Account != "123456789012" || !strings.HasPrefix(id.ARN, "arn:aws:") || id.Partition != "aws" {
		t.Errorf("identity %+v", id)
	}
}
