package signature

import (
	"encoding/json"
	"maps"
	"testing"
)

// One rule for classify (reading logs.json) and logsearch (its Result): the
// recorded signature, else the exception's; a message not found, without
// an id or without either text is left out.
func TestByMessage(t *testing.T) {
	var logs struct {
		Messages []Logged `json:"messages"`
	}
	doc := `{"messages": [
		{"message_id": "m1", "found": true, "signature": "Recorded: <n>", "exception": "Other: 1"},
		{"message_id": "m2", "found": true, "exception": "SkuNotFound: SKU-9123", "log_group": "/aws/lambda/x"},
		{"message_id": "m3", "found": false, "exception": "SkuNotFound: SKU-1"},
		{"message_id": "", "found": true, "exception": "SkuNotFound: SKU-2"},
		{"message_id": "m5", "found": true}
	]}`
	if err := json.Unmarshal([]byte(doc), &logs); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"m1": "Recorded: <n>", "m2": "SkuNotFound: SKU-<n>"}
	if got := ByMessage(logs.Messages); !maps.Equal(got, want) {
		t.Errorf("ByMessage = %v, want %v", got, want)
	}
}
