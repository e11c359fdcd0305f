package classify

// Inputs are a classify event's inputs: where the messages came from and
// the thresholds asked for.
type Inputs struct {
	From        string   `json:"from"`
	Source      string   `json:"source"`
	Baseline    string   `json:"baseline"`
	Expect      []string `json:"expect"`
	Key         string   `json:"key"`
	BurstWindow string   `json:"burst_window"`
	BurstShare  float64  `json:"burst_share"`
	TrickleSpan string   `json:"trickle_span"`
	Payload     string   `json:"payload"`
}

// Figures are a classify event's figures: the counts of classification.json.
type Figures struct {
	Messages   int             `json:"messages"`
	Groups     int             `json:"groups"`
	Confidence float64         `json:"confidence"`
	ByVerdict  map[Verdict]int `json:"by_verdict,omitempty"`
	// Judgement says whether this look replaced the incident's verdict or
	// was shown beside it, and why (judgement.go). Absent in older events.
	Judgement *Judgement `json:"judgement,omitempty"`
}

// Figures counts the classification for its event, as changes.Result's
// Figures does (redrive.FiguresOf is the other way: an event's figures
// read back).
func (c *Classification) Figures() Figures {
	by := map[Verdict]int{}
	for _, g := range c.Groups {
		by[g.Verdict] += g.Count
	}
	return Figures{Messages: c.Messages, Groups: len(c.Groups), Confidence: c.Confidence, ByVerdict: by}
}
