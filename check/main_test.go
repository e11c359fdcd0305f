package check

import (
	"os"
	"testing"

	"github.com/mfdlq/mfdlq/internal/localaws"
)

// TestMain runs the tests with a local AWS, started only by the tests that
// call it (the alarm listing's).
func TestMain(m *testing.M) { os.Exit(localaws.Wrap(m).Run()) }
