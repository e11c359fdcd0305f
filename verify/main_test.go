package verify

import (
	"os"
	"testing"

	"github.com/mfdlq/mfdlq/internal/localaws"
)

// TestMain starts a local AWS only for the tests that ask for it: the
// judgements are tested on observations, the looks through the SDK.
func TestMain(m *testing.M) { os.Exit(localaws.Wrap(m).Run()) }
