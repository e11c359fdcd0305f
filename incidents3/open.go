package incidents3

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mfdlq/mfdlq/incident"
)

// pointer is the object that names a DLQ's open incident in S3.
type pointer struct {
	ID    string    `json:"id"`
	Queue string    `json:"queue"`
	Since time.Time `json:"since"`
}

// pointerKey is the open-incident pointer of queue in account and region:
// two DLQs of one name in two accounts or regions never share one.
func (p Prefix) pointerKey(account, region, queue string) string {
	return p.Path + "open/" + cmp.Or(account, "-") + "/" + cmp.Or(region, "-") + "/" + queue
}

// OpenOf returns the open incident of queue under p, creating its pointer
// when the DLQ has none, or when the one it names is closed (record was
// its last step) or stale (no event within incident.Stale of now). Of two
// runs at once exactly one pointer write wins (If-None-Match: *, or
// If-Match: the ETag read) and both return the winner's incident. created
// tells that this run named a new incident.
func OpenOf(ctx context.Context, c API, p Prefix, account, region, queue string, now time.Time) (loc Location, created bool, err error) {
	key := p.pointerKey(account, region, queue)
	for attempt := 0; attempt < 3; attempt++ {
		cur, err := get(ctx, c, p.Bucket, key, 4<<10)
		match := ""
		switch {
		case errors.Is(err, ErrNotFound):
		case err != nil:
			return Location{}, false, fmt.Errorf("open incident of %s: %w", queue, err)
		default:
			var ptr pointer
			if json.Unmarshal(cur.data, &ptr) == nil && idRE.MatchString(ptr.ID) {
				open, err := isOpen(ctx, c, p.Incident(ptr.ID), now)
				if err != nil {
					return Location{}, false, err
				}
				if open {
					return p.Incident(ptr.ID), false, nil
				}
			}
			match = cur.etag
		}
		id, err := freeID(ctx, c, p, queue, now)
		if err != nil {
			return Location{}, false, err
		}
		body, _ := json.Marshal(pointer{ID: id, Queue: queue, Since: now.UTC()})
		_, err = put(ctx, c, p.Bucket, key, body, match, "application/json")
		switch {
		case err == nil:
			return p.Incident(id), true, nil
		case !errors.Is(err, errConditionLost):
			return Location{}, false, fmt.Errorf("open incident of %s: %w", queue, err)
		}
		// Another run named the incident first: read its pointer again.
	}
	return Location{}, false, fmt.Errorf("open incident of %s: the pointer s3://%s/%s kept changing under three attempts", queue, p.Bucket, key)
}

// isOpen tells whether the incident at loc is one a new event joins:
// record has not closed it and it had an event within incident.Stale. An
// incident with no events yet (its first writer is still at work) is open.
func isOpen(ctx context.Context, c API, loc Location, now time.Time) (bool, error) {
	last, _, err := lastEvent(ctx, c, loc, MaxObjectBytes)
	if err != nil {
		return false, err
	}
	if last.Step == "" {
		return true, nil
	}
	return !incident.Closes(last) && now.Sub(last.Time) <= incident.Stale, nil
}

// freeID is a new incident ID for queue at now whose events S3 does not
// hold: -2, -3 … after a closed incident begun in the same minute.
func freeID(ctx context.Context, c API, p Prefix, queue string, now time.Time) (string, error) {
	base := incident.NewName(queue, now)
	for n := 1; n <= 20; n++ {
		id := base
		if n > 1 {
			id = fmt.Sprintf("%s-%d", base, n)
		}
		_, err := get(ctx, c, p.Bucket, p.Incident(id).key(incident.EventsFile), 0)
		var tl *TooLargeError
		switch {
		case errors.Is(err, ErrNotFound):
			return id, nil
		case errors.As(err, &tl):
		case err != nil:
			return "", err
		}
	}
	return "", fmt.Errorf("twenty incidents of %s began at %s: pass an incident of your own", queue, base)
}

// Episode is one move of an alarm into ALARM: its ARN and the time of the
// state it moved into. EventBridge may deliver one event twice, and an
// alarm that flaps makes one episode per move.
type Episode struct {
	AlarmARN  string `json:"alarm_arn"`
	StateTime string `json:"state_timestamp"`
	Queue     string `json:"queue"`
}

// key is the episode's object: a hash, since an alarm's ARN and time hold
// characters a key had better not.
func (e Episode) key(p Prefix) string {
	h := sha256.Sum256([]byte(e.AlarmARN + "\n" + e.StateTime))
	return p.Path + "episodes/" + hex.EncodeToString(h[:20])
}

// Claim records the episode under p, only if no run recorded it before
// (If-None-Match: *): ok is false for an episode already claimed, whose
// triage this run must not start again.
func (e Episode) Claim(ctx context.Context, c API, p Prefix) (ok bool, err error) {
	body, _ := json.Marshal(e)
	_, err = put(ctx, c, p.Bucket, e.key(p), body, "", "application/json")
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, errConditionLost):
		return false, nil
	}
	return false, fmt.Errorf("claim the alarm episode: %w", err)
}

// triageClaim is the object that holds an incident's latest triage start.
type triageClaim struct {
	Since time.Time `json:"since"`
}

// triageKey is loc's triage claim: beside the pointers and episodes, never
// under the incident's own objects (a pull would bring it down as a file).
func (l Location) triageKey() string { return l.Path + "triaging/" + l.ID }

// ClaimTriage claims the incident's triage at now unless a run claimed it
// less than cooldown ago: two alarms of one DLQ firing at once (its "not
// empty" and its "growing" alarm are two episodes) and a flap arriving
// while a triage still runs start one triage, tell the team once, and do
// not race on the incident's artifacts. The claim is created with
// If-None-Match: * and renewed with If-Match: the ETag read, so of runs at
// once exactly one wins. since is the time of the claim that holds when ok
// is false.
func ClaimTriage(ctx context.Context, c API, loc Location, now time.Time, cooldown time.Duration) (ok bool, since time.Time, err error) {
	key := loc.triageKey()
	body, _ := json.Marshal(triageClaim{Since: now.UTC()})
	match := ""
	cur, err := get(ctx, c, loc.Bucket, key, 4<<10)
	switch {
	case errors.Is(err, ErrNotFound):
	case err != nil:
		return false, time.Time{}, fmt.Errorf("claim the triage of %s: %w", loc.ID, err)
	default:
		var held triageClaim
		if json.Unmarshal(cur.data, &held) == nil && now.Sub(held.Since) < cooldown {
			return false, held.Since, nil
		}
		match = cur.etag
	}
	_, err = put(ctx, c, loc.Bucket, key, body, match, "application/json")
	switch {
	case err == nil:
		return true, time.Time{}, nil
	case errors.Is(err, errConditionLost):
		// Another run claimed it first: its triage is this episode's.
		cur, gerr := get(ctx, c, loc.Bucket, key, 4<<10)
		var held triageClaim
		if gerr == nil {
			_ = json.Unmarshal(cur.data, &held)
		}
		return false, held.Since, nil
	}
	return false, time.Time{}, fmt.Errorf("claim the triage of %s: %w", loc.ID, err)
}

// ReleaseTriage gives back the incident's triage claim after a triage
// that failed, so that the next episode tries again rather than joining a
// triage that never answered.
func ReleaseTriage(ctx context.Context, c API, loc Location) error {
	cur, err := get(ctx, c, loc.Bucket, loc.triageKey(), 4<<10)
	if err != nil {
		return fmt.Errorf("release the triage of %s: %w", loc.ID, err)
	}
	body, _ := json.Marshal(triageClaim{})
	if _, err := put(ctx, c, loc.Bucket, loc.triageKey(), body, cur.etag, "application/json"); err != nil && !errors.Is(err, errConditionLost) {
		return fmt.Errorf("release the triage of %s: %w", loc.ID, err)
	}
	return nil
}

// lastEvent reads the incident's events (at most max bytes) and returns
// the last one that decodes, and the first one (for the queue and start).
func lastEvent(ctx context.Context, c API, loc Location, max int64) (last, first incident.Event, err error) {
	o, err := get(ctx, c, loc.Bucket, loc.key(incident.EventsFile), max)
	switch {
	case errors.Is(err, ErrNotFound):
		return incident.Event{}, incident.Event{}, nil
	case err != nil:
		return incident.Event{}, incident.Event{}, err
	}
	seen := false
	for _, line := range bytes.Split(o.data, []byte("\n")) {
		var ev incident.Event
		if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &ev) != nil {
			continue
		}
		if !seen {
			first, seen = ev, true
		}
		if !incident.Bookkeeping(ev) {
			last = ev
		}
	}
	return last, first, nil
}
