package classify

import (
	"encoding/json"
	"fmt"
	"os"
)

// logsDoc is the part of logs.json classify reads.
type logsDoc struct {
	Messages []struct {
		MessageID string `json:"message_id"`
		Found     bool   `json:"found"`
		Exception string `json:"exception"`
		Signature string `json:"signature"`
	} `json:"messages"`
}

// ReadSignatures reads logs.json: each found message's signature (computed
// from its exception when the file has none).
func ReadSignatures(path string) (Signatures, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseSignatures(b, path)
}

// ParseSignatures is ReadSignatures on logs.json's bytes, read by the
// caller (the incident reads its files without following links); name is
// for errors.
func ParseSignatures(b []byte, name string) (Signatures, error) {
	var doc logsDoc
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	sigs := Signatures{}
	for _, m := range doc.Messages {
		sig := m.Signature
		if sig == "" {
			sig = Signature(m.Exception)
		}
		if m.Found && m.MessageID != "" && sig != "" {
			sigs[m.MessageID] = sig
		}
	}
	return sigs, nil
}
