package consumer

import (
	"os"
	"testing"

	"github.com/mfdlq/mfdlq/internal/localaws"
)

// TestMain runs the tests with a local AWS: NoteSeen reads the source
// queues and their mappings through the SDK.
func TestMain(m *testing.M) { os.Exit(localaws.Wrap(m).Run()) }
