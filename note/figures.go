package note

// Inputs are a note event's inputs.
type Inputs struct {
	Clear  bool `json:"clear"`
	DryRun bool `json:"dry_run"`
}

// Figures are a note event's figures: the note written (or cleared) and
// the one it replaced, as read just before. The incident is the record of
// who claimed the DLQ when; the tags keep only the latest.
type Figures struct {
	Action   string `json:"action"` // ActionSet or ActionClear
	Note     *Note  `json:"note"`
	Replaced *Note  `json:"replaced"`
}

// Note event actions.
const (
	ActionSet   = "set"
	ActionClear = "clear"
)
