package logsearch

// Inputs are a logs event's inputs: where and how the messages were looked
// for.
type Inputs struct {
	LogGroups  []string `json:"log_groups"`
	LogFile    string   `json:"log_file"`
	Method     string   `json:"method"`
	Margin     string   `json:"margin"`
	MessageIDs []string `json:"message_ids"`
}

// Figures are a logs event's figures.
type Figures struct {
	Searched int `json:"searched"`
	Found    int `json:"found"`
}
