package inspect

import (
	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/s3api"
)

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
