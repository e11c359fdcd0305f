package target

import (
	"os"
	"testing"

	"github.com/mfdlq/mfdlq/internal/localaws"
)

// TestMain runs the tests with a local AWS: the loop checks read SNS and
// EventBridge through the SDK.
func TestMain(m *testing.M) { os.Exit(localaws.Wrap(m).Run()) }
