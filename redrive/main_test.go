package redrive

import (
	"os"
	"testing"

	"github.com/mfdlq/mfdlq/internal/localaws"
)

// TestMain runs the tests with a local AWS: the lease is tested through
// the SDK against its queue tags.
func TestMain(m *testing.M) { os.Exit(localaws.Wrap(m).Run()) }
