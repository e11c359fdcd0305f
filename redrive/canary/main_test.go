package canary

import (
	"os"
	"testing"

	"github.com/mfdlq/mfdlq/internal/localaws"
)

// TestMain starts a local AWS only for the tests that ask for it: the
// returns' peek is tested through the SDK, the depth looks with a fake.
func TestMain(m *testing.M) { os.Exit(localaws.Wrap(m).Run()) }
