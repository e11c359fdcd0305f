package check

import "time"

// Inputs are a check event's inputs.
type Inputs struct {
	CreateAlarm      bool   `json:"create_alarm"`
	Topic            string `json:"topic"`
	DryRun           bool   `json:"dry_run"`
	SDKAttempts      int    `json:"sdk_attempts"`
	WorkflowAttempts int    `json:"workflow_attempts"`
	ReadTimeout      string `json:"read_timeout"`
}

// Figures are a check event's figures: the findings counted by status, the
// ids of those that failed or warned, and the source's retry window — how
// long a failing message takes to reach the DLQ — which the report adds to
// the first failure to say when the DLQ alarm would have fired.
type Figures struct {
	Pass   int      `json:"pass"`
	Warn   int      `json:"warn"`
	Fail   int      `json:"fail"`
	Skip   int      `json:"skip"`
	Failed []string `json:"failed"`
	Warned []string `json:"warned"`
	// VisibilityTimeoutSeconds and MaxReceiveCount are the source queue's
	// (the one that reaches the DLQ soonest, with several); 0 when no
	// source names the DLQ.
	VisibilityTimeoutSeconds int `json:"visibility_timeout_seconds,omitempty"`
	MaxReceiveCount          int `json:"max_receive_count,omitempty"`
}

// RetryWindow is how long a message that always fails takes to exhaust
// maxReceiveCount: the visibility timeout times maxReceiveCount. 0 when
// unknown.
func (f Figures) RetryWindow() time.Duration {
	return time.Duration(f.VisibilityTimeoutSeconds*f.MaxReceiveCount) * time.Second
}

// Figures counts rep's findings and reads the sources' retry window from
// in.
func (rep *Result) Figures(in CheckInput) Figures {
	f := Figures{Failed: []string{}, Warned: []string{}}
	for _, x := range rep.Findings {
		switch x.Status {
		case Pass:
			f.Pass++
		case Warn:
			f.Warn++
			f.Warned = append(f.Warned, x.ID)
		case Fail:
			f.Fail++
			f.Failed = append(f.Failed, x.ID)
		case Skip:
			f.Skip++
		}
	}
	for _, src := range in.Sources {
		n := maxReceive(src)
		vis := int(src.Visibility / time.Second)
		if n < 1 || vis < 1 {
			continue
		}
		if f.MaxReceiveCount == 0 || n*vis < f.VisibilityTimeoutSeconds*f.MaxReceiveCount {
			f.VisibilityTimeoutSeconds, f.MaxReceiveCount = vis, n
		}
	}
	return f
}
