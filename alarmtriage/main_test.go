package alarmtriage

import (
	"os"
	"testing"

	"github.com/mfdlq/mfdlq/internal/localaws"
)

// TestMain runs the tests with a local AWS: the handler keeps its
// incidents and episodes in moto's S3, through the SDK.
func TestMain(m *testing.M) { os.Exit(localaws.Wrap(m).Run()) }
