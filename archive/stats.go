package archive

import (
	"slices"
	"time"

	"github.com/mfdlq/mfdlq/untrusted"
)

// Stats are an export's figures.
type Stats struct {
	Received int `json:"received"` // distinct messages received
	Exported int `json:"exported"` // written to the file
	Skipped  int `json:"skipped"`  // not selected: made visible again
	Deleted  int `json:"deleted"`  // deleted after the file was durable
	// NotDeleted are exported messages whose delete failed: they are both
	// in the file and still in the DLQ.
	NotDeleted int `json:"not_deleted"`
	// Released are messages made visible again at the end; NotReleased
	// those SQS did not confirm (they come back when their visibility
	// timeout ends).
	Released    int `json:"released"`
	NotReleased int `json:"not_released,omitempty"`
	// Kept names where the messages deleted before a failure are: the
	// file kept (cut back to its last checkpoint) or the parts uploaded.
	Kept string `json:"kept,omitempty"`
	// FilterErrors are messages on which Select failed: not written, made
	// visible again, never deleted. FilterErrorTexts keeps the first
	// distinct errors, FilterErrorIDs the first MessageIds, for the
	// operator and the incident.
	FilterErrors     int      `json:"filter_errors"`
	FilterErrorTexts []string `json:"filter_error_texts,omitempty"`
	FilterErrorIDs   []string `json:"filter_error_ids,omitempty"`
	// Unchecked are messages that came without an MD5OfBody.
	Unchecked int    `json:"unchecked"`
	Location  string `json:"location"`
	Bytes     int64  `json:"bytes"`
	SHA256    string `json:"sha256"`
	// Interrupted is true when Ctrl-C stopped the reading: nothing was
	// written or deleted.
	Interrupted bool `json:"interrupted"`
	// Limit says why the reading stopped at SQS's in-flight limit with
	// messages left unread (LimitHeld, LimitOverLimit, LimitEmpty; ""
	// when it did not): what was read is in the file all the same.
	Limit string `json:"limit,omitempty"`
	// Held is how many messages the export held in flight when it
	// stopped at the limit; VisibleLeft how many SQS showed visible then
	// (0 when not asked).
	Held        int `json:"held,omitempty"`
	VisibleLeft int `json:"visible_left,omitempty"`
	// Hidden is how many messages receives whose answers were lost may
	// still hide (an upper bound: ten a failed receive, or the surplus SQS
	// shows in flight), visible again at HiddenUntil; 0 when none. The
	// export waited and looked again before it ended with them.
	Hidden      int       `json:"hidden,omitempty"`
	HiddenUntil time.Time `json:"hidden_until,omitzero"`
	// Parts are the objects of an export to S3 with Delete that went in
	// parts (more than one), in order; nil for one file.
	Parts []Part `json:"parts,omitempty"`
}

// Bounds on what an export keeps of its filter errors.
const (
	maxFilterErrorTexts = 3
	maxFilterErrorIDs   = 100
	maxFilterErrorText  = 300
)

// filterError counts a message the filter failed on. It is not written
// and, like a skipped one, made visible again at the end.
func (st *Stats) filterError(id string, err error) {
	st.FilterErrors++
	if len(st.FilterErrorIDs) < maxFilterErrorIDs {
		st.FilterErrorIDs = append(st.FilterErrorIDs, id)
	}
	text := err.Error()
	if len(text) > maxFilterErrorText {
		text = untrusted.Head(text, maxFilterErrorText) + "…"
	}
	if len(st.FilterErrorTexts) < maxFilterErrorTexts && !slices.Contains(st.FilterErrorTexts, text) {
		st.FilterErrorTexts = append(st.FilterErrorTexts, text)
	}
}
