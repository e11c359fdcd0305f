package report

// RecordInputs are a record event's inputs: where the report went and
// which of the operator's texts were given. The record step is the report,
// so report owns them.
type RecordInputs struct {
	Out      string `json:"out"`
	Redacted bool   `json:"redacted"`
	Cause    bool   `json:"cause"`
	Change   bool   `json:"change"`
	Warning  bool   `json:"warning"`
}

// RecordFigures are a record event's figures.
type RecordFigures struct {
	TODO       int `json:"todo"`
	Redactions int `json:"redactions"`
}
