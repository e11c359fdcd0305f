package consumer

import (
	"strings"
	"testing"
	"time"
)

// A fix is deployed when the function changed since the failures began:
// modified after, or another CodeSha256 or Version than its baseline.
func TestDeployed(t *testing.T) {
	first := time.Date(2026, 11, 29, 22, 4, 0, 0, time.UTC)
	before := Function{Name: "orders-consumer", ARN: "arn:f", Version: "$LATEST", CodeSha256: "aaa", LastModified: time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)}
	d := Deploy{Since: first, SinceText: "the first failure (" + When(first, first.Add(2*time.Hour)) + ")", Baseline: map[string]Function{"arn:f": before}}
	newCode := before
	newCode.CodeSha256 = "bbb"
	published := before
	published.Version = "7"
	modified := before
	modified.LastModified = first.Add(time.Hour)
	for _, tt := range []struct {
		name string
		f    Function
		want bool
	}{{"unchanged", before, false}, {"new code, same LastModified (moto)", newCode, true}, {"new version", published, true}, {"modified after the first failure", modified, true}} {
		if got := d.Deployed(tt.f); got != tt.want {
			t.Errorf("%s: Deployed = %v, want %v", tt.name, got, tt.want)
		}
	}
	want := "orders-consumer was last changed 2026-11-28 10:00 UTC, before the first failure (Sunday 22:04): the fix is not deployed"
	if r := d.NotDeployed(before); !strings.HasPrefix(r, want) {
		t.Errorf("refusal %q\nwant prefix %q", r, want)
	}
	if got := parseLambdaTime("2026-11-28T10:00:00.000+0000"); !got.Equal(before.LastModified) {
		t.Errorf("parseLambdaTime = %v", got)
	}
}
