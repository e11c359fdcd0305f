package signature

// Logged is what a log search recorded of one message, as far as its
// signature goes: logs.json's message_id, found, exception and signature
// (logsearch.Record writes them). classify reads logs.json through it, so
// that it imports no other step and still reads the same rule.
type Logged struct {
	MessageID string `json:"message_id"`
	Found     bool   `json:"found"`
	Exception string `json:"exception"`
	Signature string `json:"signature"`
}

// ByMessage maps each message a log search found lines for to its
// signature: the one recorded, else its exception's (a logs.json written
// by hand or by an older mfdlq). A message without a MessageId or without
// either text is left out.
func ByMessage(logged []Logged) map[string]string {
	sigs := map[string]string{}
	for _, m := range logged {
		sig := m.Signature
		if sig == "" {
			sig = Of(m.Exception)
		}
		if m.Found && m.MessageID != "" && sig != "" {
			sigs[m.MessageID] = sig
		}
	}
	return sigs
}
