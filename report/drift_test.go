package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mfdlq/mfdlq/classify"
)

// TestClassifyQuotesTheDrift: a group's drift from the baseline is quoted
// on its own "drift:" lines, once, not again as evidence.
func TestClassifyQuotesTheDrift(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := "../testdata/incident-deploy"
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "classification.json"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := classify.Parse(b, "classification.json")
	if err != nil {
		t.Fatal(err)
	}
	line := "amount: number in 100 of 100 baseline messages, string in 170 of 170 here: a contract change"
	c.Groups[0].Drift = []classify.Drift{{Field: "amount", Kind: classify.DriftType, Value: "string", Count: 170, Of: 170, Contract: true, Text: line}}
	c.Groups[0].Evidence = append([]string{line}, c.Groups[0].Evidence...)
	b, _ = json.Marshal(c)
	if err := os.WriteFile(filepath.Join(dir, "classification.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	got, _ := renderDir(t, dir, ReportOptions{Now: reportNow})
	if n := strings.Count(got, "amount: number in 100 of 100 baseline messages"); n != 1 {
		t.Errorf("the drift is quoted %d times, want once", n)
	}
	if !strings.Contains(got, "- drift: amount: number in 100 of 100 baseline messages, string in 170 of 170 here: a contract change") {
		t.Errorf("no drift line in:\n%s", got)
	}
}
