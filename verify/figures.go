package verify

// Inputs are a verify event's inputs.
type Inputs struct {
	Wait       string `json:"wait"`
	Interval   string `json:"interval"`
	ExpectLeft int    `json:"expect_left"`
}

// Figures are a verify event's figures: the last observation of verify.json
// and its counts, flat.
type Figures struct {
	DLQVisible    int64    `json:"dlq_visible"`
	DLQInFlight   int64    `json:"dlq_in_flight"`
	Returned      int      `json:"returned"`
	DestQueue     string   `json:"dest_queue"`
	DestVisible   int64    `json:"dest_visible"`
	DestInFlight  int64    `json:"dest_in_flight"`
	DestDeleted   *float64 `json:"dest_deleted"`
	DestSent      *float64 `json:"dest_sent"`
	Moved         int      `json:"moved"`
	Looks         int      `json:"looks"`
	WaitedSeconds float64  `json:"waited_seconds"`
	Unchecked     int      `json:"unchecked"`
	// NewInDLQ are a live queue's new failures, not redriven messages.
	NewInDLQ int `json:"new_in_dlq,omitempty"`
	// Destinations are each destination's verdict, for a move to several.
	Destinations []DestFigures `json:"destinations,omitempty"`
}

// DestFigures are one destination's figures in a verify of a move to
// several.
type DestFigures struct {
	Queue    string  `json:"queue"`
	Moved    int     `json:"moved"`
	Returned int     `json:"returned"`
	Live     bool    `json:"live"`
	Verdict  Verdict `json:"verdict"`
}

// Figures flattens the result and the redrive it judged, for verify's
// event.
func (res Result) Figures(rec Redriven) Figures {
	f := Figures{
		DLQVisible: res.DLQVisible, DLQInFlight: res.Last.DLQInFlight, Returned: len(res.Returned),
		DestQueue: res.DestQueue, DestVisible: res.Last.DestVisible, DestInFlight: res.Last.DestInFlight,
		DestDeleted: res.Last.Deleted, DestSent: res.Last.Sent, Moved: rec.Moved, Looks: res.Looks,
		WaitedSeconds: res.Waited, Unchecked: len(res.Unchecked), NewInDLQ: res.NewInDLQ,
	}
	if len(res.Destinations) > 1 {
		for _, d := range res.Destinations {
			f.Destinations = append(f.Destinations, DestFigures{Queue: d.Queue, Moved: d.Moved, Returned: d.Returned, Live: d.Live, Verdict: d.Verdict})
		}
	}
	return f
}
