package sqsapi

// inspect has no package of its own: its step is Peek, so sqsapi owns the
// types of its event.

// InspectInputs are an inspect event's inputs.
type InspectInputs struct {
	Max        int    `json:"max"`
	Visibility int    `json:"visibility"` // seconds each peeked message stays hidden
	Out        string `json:"out"`
}

// InspectFigures are an inspect event's figures: what the peek saw and the
// queue's depth at the time.
type InspectFigures struct {
	Sampled  int   `json:"sampled"`
	Receives int   `json:"receives"`
	Visible  int64 `json:"visible"`
	InFlight int64 `json:"in_flight"`
	Delayed  int64 `json:"delayed"`
	FIFO     bool  `json:"fifo"`
	ExpiryFigures
}
