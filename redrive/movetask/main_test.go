package movetask

import (
	"os"
	"testing"

	"github.com/mfdlq/mfdlq/internal/localaws"
)

// TestMain starts a local AWS only for the tests that ask for it: a lost
// StartMessageMoveTask answer is tested through the SDK, against the
// move-task stand-in in front of it.
func TestMain(m *testing.M) { os.Exit(localaws.Wrap(m).Run()) }
