package envelope

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
)

// CloudEvents (cloudevents.io, spec 1.0) reach SQS in two modes. In
// structured mode the body is the event as JSON: specversion, id, source
// and type are required, the payload is data (or data_base64), and
// dataschema and type name its schema. In binary mode the body is the data
// itself and the attributes travel as message attributes prefixed "ce_"
// (the Kafka and AMQP bindings' spelling) or "ce-" (HTTP's).

// ceFields are the top-level members of a structured-mode event.
type ceFields struct {
	specversion, id, source, typ, data, dataBase64, dataschema, contentType []byte
}

func (f *ceFields) set(k string, v []byte) {
	switch k {
	case "specversion":
		f.specversion = v
	case "id":
		f.id = v
	case "source":
		f.source = v
	case "type":
		f.typ = v
	case "data":
		f.data = v
	case "data_base64":
		f.dataBase64 = v
	case "dataschema":
		f.dataschema = v
	case "datacontenttype":
		f.contentType = v
	}
}

// isCloudEvent: a specversion string that names a version ("1.0", "0.3"),
// and non-empty id, source and type strings.
func (f *ceFields) isCloudEvent() bool {
	return isSpecVersion(text(f.specversion)) && isNonEmptyString(f.id) && isNonEmptyString(f.source) && isNonEmptyString(f.typ)
}

func isSpecVersion(s string) bool {
	return len(s) >= 3 && s[0] >= '0' && s[0] <= '9' && s[1] == '.'
}

// cloudEvent reads a structured-mode event: the payload is data — a JSON
// value as it is, a string holding JSON read as that JSON (as SNS
// stringifies), or data_base64 decoded.
func (r *docResult) cloudEvent(b []byte, f *ceFields) {
	r.kind = KindCloudEvents
	r.eventType, r.dataSchema = text(f.typ), text(f.dataschema)
	r.docs[0] = doc{KindCloudEvents, b}
	switch {
	case f.data != nil && isString(f.data):
		s := []byte(text(f.data))
		r.payload, r.payloadJSON = s, json.Valid(s)
	case f.data != nil:
		r.payload, r.payloadJSON = f.data, string(f.data) != "null"
	case isString(f.dataBase64):
		dec, err := base64.StdEncoding.DecodeString(text(f.dataBase64))
		if err == nil {
			r.payload, r.payloadJSON = dec, json.Valid(dec)
		}
	}
}

// readCloudEvent tells a structured-mode event in a valid JSON object.
func readCloudEvent(b []byte) (docResult, bool) {
	if !bytes.Contains(b, []byte(`"specversion"`)) {
		return docResult{}, false
	}
	var f ceFields
	eachMember(b, func(k, v []byte) bool {
		f.set(string(k), v)
		return true
	})
	if !f.isCloudEvent() {
		return docResult{}, false
	}
	r := docResult{valid: true}
	r.cloudEvent(b, &f)
	return r, true
}

// ceAttr is a binary-mode attribute: "ce_NAME" or "ce-NAME".
func ceAttr(e *Envelope, name string) (string, bool) {
	if v, ok := stringAttr(e.attrs, "ce_"+name); ok {
		return v, true
	}
	return stringAttr(e.attrs, "ce-"+name)
}

// binaryCloudEvent tells a binary-mode event by its attributes: a
// specversion, an id, a source and a type.
func (e *Envelope) binaryCloudEvent() bool {
	if len(e.attrs) < 4 {
		return false
	}
	spec, ok1 := ceAttr(e, "specversion")
	id, ok2 := ceAttr(e, "id")
	src, ok3 := ceAttr(e, "source")
	typ, ok4 := ceAttr(e, "type")
	if !ok1 || !ok2 || !ok3 || !ok4 || !isSpecVersion(spec) || id == "" || src == "" || strings.TrimSpace(typ) == "" {
		return false
	}
	e.EventType = typ
	e.DataSchema, _ = ceAttr(e, "dataschema")
	return true
}
