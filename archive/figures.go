package archive

import "time"

// Inputs are an export event's inputs.
type Inputs struct {
	Out    string `json:"out"`
	Delete bool   `json:"delete"`
	Max    int    `json:"max"`
	Filter string `json:"filter"`
}

// Figures are an export event's figures: where the archive is and what was
// deleted once it was durable. The report names them in its archive
// section.
type Figures struct {
	Location   string `json:"location"`
	Exported   int    `json:"exported"`
	Deleted    int    `json:"deleted"`
	NotDeleted int    `json:"not_deleted"`
	Skipped    int    `json:"skipped"`
	// FilterErrors are the messages --filter failed on, left in the DLQ.
	FilterErrors int    `json:"filter_errors,omitempty"`
	Backlog      int    `json:"backlog"`
	Bytes        int64  `json:"bytes"`
	SHA256       string `json:"sha256"`
	// StoppedAtLimit says why the export stopped at SQS's in-flight limit
	// with messages unread (Limit*); "" when it did not.
	StoppedAtLimit string `json:"stopped_at_limit,omitempty"`
	// PartCount is how many objects an export to S3 with --delete went
	// in, when more than one (Location is the first, Bytes their sum,
	// SHA256 ""); Parts names the first MaxEventParts of them, each with
	// its location, count, bytes and sha256. export.json lists them all.
	PartCount int    `json:"part_count,omitempty"`
	Parts     []Part `json:"parts,omitempty"`
	// Hidden is how many messages receives whose answers were lost may
	// still hide when the export ended, back at HiddenUntil.
	Hidden      int       `json:"hidden,omitempty"`
	HiddenUntil time.Time `json:"hidden_until,omitzero"`
	// Failed is the error of an export that failed after deleting
	// messages (at most MaxFailedText bytes); Location then names the
	// file or parts that hold exactly those (Exported = Deleted).
	Failed string `json:"failed,omitempty"`
}

// MaxFailedText bounds Figures.Failed.
const MaxFailedText = 600

// MaxEventParts bounds the parts an export event names: events.jsonl
// stays small whatever the in-flight limit.
const MaxEventParts = 100

// Figures are the event's figures of an export's stats (one word for
// both: a result gives its figures; redrive.FiguresOf reads them back).
func (st Stats) Figures(backlog int) Figures {
	f := Figures{Location: st.Location, Exported: st.Exported, Deleted: st.Deleted, NotDeleted: st.NotDeleted,
		Skipped: st.Skipped, FilterErrors: st.FilterErrors, Backlog: backlog, Bytes: st.Bytes, SHA256: st.SHA256, StoppedAtLimit: st.Limit,
		Hidden: st.Hidden, HiddenUntil: st.HiddenUntil}
	if len(st.Parts) > 1 {
		f.PartCount = len(st.Parts)
		f.Parts = st.Parts[:min(len(st.Parts), MaxEventParts)]
	}
	return f
}
