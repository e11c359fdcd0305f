package archive

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
}

// FiguresOf is the event's figures of an export's stats.
func FiguresOf(st Stats, backlog int) Figures {
	return Figures{Location: st.Location, Exported: st.Exported, Deleted: st.Deleted, NotDeleted: st.NotDeleted,
		Skipped: st.Skipped, FilterErrors: st.FilterErrors, Backlog: backlog, Bytes: st.Bytes, SHA256: st.SHA256, StoppedAtLimit: st.Limit}
}
