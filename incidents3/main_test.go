package incidents3

import (
	"os"
	"testing"

	"github.com/mfdlq/mfdlq/internal/localaws"
)

// TestMain runs the tests with a local AWS: incidents in S3 are tested
// through the SDK against moto's S3 and its conditional writes.
func TestMain(m *testing.M) { os.Exit(localaws.Wrap(m).Run()) }
