package cmd

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/s3api"
)

// fetchPayloadsHelp is the --fetch-payloads flag's help, shared by inspect
// and classify.
const fetchPayloadsHelp = "read up to N offloaded payloads (SQS Extended Client pointers) from S3 to look inside: s3:GetObject only, never deletes, 8 MiB each at most, redacted"

// validateFetch checks --fetch-payloads N.
func validateFetch(n int) error {
	if n < 0 || n > s3api.MaxFetches {
		return usageErrorf("--fetch-payloads must be between 0 and %d, got %d", s3api.MaxFetches, n)
	}
	return nil
}

// payloadFetcher is the reader of --fetch-payloads N: nil for 0.
func (d *Deps) payloadFetcher(ctx context.Context, n int) (*s3api.Fetcher, error) {
	if n == 0 {
		return nil, nil
	}
	c, err := d.S3(ctx)
	if err != nil {
		return nil, err
	}
	return s3api.NewFetcher(ctx, c, n, 0), nil
}

// reportFetches says on stderr what --fetch-payloads read.
func (d *Deps) reportFetches(f *s3api.Fetcher) {
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
	d.infof("offloaded payloads from S3 (s3:GetObject, nothing deleted): %s", strings.Join(parts, ", "))
	if n := f.Redacted.Total(); n > 0 {
		d.infof("redacted %d values in them (%s)", n, strings.Join(f.Redacted.Kinds(), ", "))
	}
	if msg := f.Denied(); msg != "" {
		d.warnf("%s", msg)
	}
}

// fetchMemo reads each pointer's object once: inspect looks at a payload
// for its row and again for its fingerprint's drift.
type fetchMemo struct {
	f    *s3api.Fetcher
	seen map[string]envelope.Fetched
}

func (m *fetchMemo) fetch(p envelope.Pointer) envelope.Fetched {
	k := p.Bucket + "/" + p.Key
	if r, ok := m.seen[k]; ok {
		return r
	}
	r := m.f.Fetch(p)
	if m.seen == nil {
		m.seen = map[string]envelope.Fetched{}
	}
	m.seen[k] = r
	return r
}
