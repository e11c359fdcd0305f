package incidents3

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/mfdlq/mfdlq/incident"
)

// MaxListed is the most incidents List reads: each costs a read of its
// events, of at most maxListedEvents bytes (a larger one is listed with
// what its name says, "events too large to list").
const (
	MaxListed       = 100
	maxListedEvents = 8 << 20
)

// Summary is one incident in S3 as ls --incidents shows it.
type Summary struct {
	URL      string    `json:"url"`
	ID       string    `json:"id"`
	Queue    string    `json:"queue"`
	Account  string    `json:"account,omitempty"`
	Region   string    `json:"region,omitempty"`
	Started  time.Time `json:"started"`
	LastStep string    `json:"last_step"`
	LastTime time.Time `json:"last_time"`
	Verdict  string    `json:"verdict,omitempty"`
	Closed   bool      `json:"closed"`
}

// List reads the incidents under p, at most MaxListed (more says
// truncated), newest last event first. Names that are not incident IDs,
// and the pointer, episode and triage claim objects, are left out.
func List(ctx context.Context, c API, p Prefix) (out []Summary, truncated bool, err error) {
	in := &s3.ListObjectsV2Input{Bucket: aws.String(p.Bucket), Prefix: aws.String(p.Path), Delimiter: aws.String("/")}
	var ids []string
	for pg := s3.NewListObjectsV2Paginator(c, in); pg.HasMorePages() && !truncated; {
		page, err := pg.NextPage(ctx)
		if err != nil {
			return nil, false, fmt.Errorf("list %s: %w", p, err)
		}
		for _, cp := range page.CommonPrefixes {
			id := strings.TrimSuffix(strings.TrimPrefix(aws.ToString(cp.Prefix), p.Path), "/")
			if id == "open" || id == "episodes" || id == "triaging" || !idRE.MatchString(id) {
				continue
			}
			if len(ids) == MaxListed {
				truncated = true
				break
			}
			ids = append(ids, id)
		}
	}
	out = []Summary{}
	for _, id := range ids {
		loc := p.Incident(id)
		last, first, err := lastEvent(ctx, c, loc, maxListedEvents)
		var tl *TooLargeError
		switch {
		case errors.As(err, &tl):
			last.Step = "(events too large to list)"
		case err != nil:
			return nil, false, err
		}
		s := Summary{URL: loc.String(), ID: id, Queue: first.Queue, Account: first.Account, Region: first.Region, Started: first.Time,
			LastStep: last.Step, LastTime: last.Time, Verdict: last.Verdict, Closed: incident.Closes(last)}
		out = append(out, s)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].LastTime.After(out[j].LastTime) })
	return out, truncated, nil
}
