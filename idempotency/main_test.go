package idempotency

import (
	"os"
	"testing"

	"github.com/mfdlq/mfdlq/internal/localaws"
)

// TestMain runs the store's tests against the local AWS (DynamoDB).
func TestMain(m *testing.M) { os.Exit(localaws.Wrap(m).Run()) }
