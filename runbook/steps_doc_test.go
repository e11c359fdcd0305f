package runbook

import (
	"os"
	"regexp"
	"testing"
)

// stepRow is a row of a steps table in the docs: "| 3 | `mfdlq changes …"
// or "| — | `mfdlq check …".
var stepRow = regexp.MustCompile("(?m)^\\| (\\d+|—) \\| `mfdlq ([a-z]+)")

// README.md's and docs/runbook.md's tables number the steps as Steps does:
// the numbering lives in one place, and the docs cannot drift from it.
func TestDocsNumberTheStepsAsTheRunbook(t *testing.T) {
	for _, file := range []string{"../README.md", "../docs/runbook.md"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, m := range stepRow.FindAllStringSubmatch(string(b), -1) {
			number, name := m[1], m[2]
			s, ok := Find(name)
			if !ok {
				t.Errorf("%s: step %s is mfdlq %s, which is no step of the runbook", file, number, name)
				continue
			}
			want := s.Ordinal()
			if want == "" {
				want = "—"
			}
			if number != want {
				t.Errorf("%s: mfdlq %s is step %s, the runbook numbers it %s", file, name, number, want)
			}
			seen[name] = true
		}
		for _, s := range All() {
			if s.Number != "" && !seen[s.Name] {
				t.Errorf("%s: no row for step %s (%s)", file, s.Number, s.Name)
			}
		}
	}
}
