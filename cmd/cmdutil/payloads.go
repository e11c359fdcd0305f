package cmdutil

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/mfdlq/mfdlq/s3api"
)

// FetchPayloadsHelp is the --fetch-payloads flag's help, shared by inspect
// and classify.
const FetchPayloadsHelp = "read up to N offloaded payloads (SQS Extended Client pointers) from S3 to look inside: s3:GetObject only, never deletes, 8 MiB each at most, redacted"

// ValidateFetch checks --fetch-payloads N.
func ValidateFetch(n int) error {
	if n < 0 || n > s3api.MaxFetches {
		return UsageErrorf("--fetch-payloads must be between 0 and %d, got %d", s3api.MaxFetches, n)
	}
	return nil
}

// PayloadFetcher is the reader of --fetch-payloads N: nil for 0.
func (d *Deps) PayloadFetcher(ctx context.Context, n int) (*s3api.Fetcher, error) {
	if n == 0 {
		return nil, nil
	}
	c, err := d.S3(ctx)
	if err != nil {
		return nil, err
	}
	return s3api.NewFetcher(ctx, c, n, 0), nil
}

// ReportFetches says on stderr what --fetch-payloads read.
func (d *Deps) ReportFetches(f *s3api.Fetcher) {
	if f == nil {
		return
	}
	var parts []string
	for s, n := range f.Counts {
		parts = append(parts, fmt.Sprintf("%d %s", n, s))
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		parts = []string{"no pointer among the messages"}
	}
	d.Infof("offloaded payloads from S3 (s3:GetObject, nothing deleted): %s", strings.Join(parts, ", "))
	if n := f.Redacted.Total(); n > 0 {
		d.Infof("redacted %d values in them (%s)", n, strings.Join(f.Redacted.Kinds(), ", "))
	}
	if msg := f.Denied(); msg != "" {
		d.Warnf("%s", msg)
	}
}
