package record

import (
	"os"
	"testing"

	"github.com/mfdlq/mfdlq/internal/localaws"
)

// TestMain starts the local AWS only for the tests that ask for it (the
// DLQ's depth when record closes the incident): the flag table, the report
// and the questions need none.
func TestMain(m *testing.M) { os.Exit(localaws.Wrap(m).Run()) }
