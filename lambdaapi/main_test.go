package lambdaapi

import (
	"os"
	"testing"

	"github.com/mfdlq/mfdlq/internal/localaws"
)

// TestMain runs the tests with a local AWS, started only by the tests that
// call it.
func TestMain(m *testing.M) { os.Exit(localaws.Wrap(m).Run()) }
