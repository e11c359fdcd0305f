package archive

import (
	"encoding/base64"
	"slices"

	"github.com/mfdlq/mfdlq/sqsjson"
)

// appendRecord appends the originals record of m to b, one JSON line: the
// bytes encoding/json writes (with SetEscapeHTML(false)) for m with its
// receipt handle left out, AttrExportedFrom dropped and AttrOriginalOf and
// AttrTransformRun set, without reflection and without copying m's
// attribute map (encoding and that copy were a fifth of what keeping the
// originals cost a message). names is scratch space for the sorted
// attribute names, returned for reuse. TestAppendRecordIsEncodingJSON
// holds it to encoding/json's bytes.
func appendRecord(b []byte, m *sqsjson.Message, dlqARN, run string, names []string) ([]byte, []string) {
	b = append(b, `{"MessageId":`...)
	b = sqsjson.AppendString(b, m.MessageId)
	if m.MD5OfBody != "" {
		b = append(b, `,"MD5OfBody":`...)
		b = sqsjson.AppendString(b, m.MD5OfBody)
	}
	b = append(b, `,"Body":`...)
	b = sqsjson.AppendString(b, m.Body)

	names = names[:0]
	for k := range m.Attributes {
		if k != sqsjson.AttrExportedFrom && k != sqsjson.AttrOriginalOf && k != sqsjson.AttrTransformRun {
			names = append(names, k)
		}
	}
	names = append(names, sqsjson.AttrOriginalOf, sqsjson.AttrTransformRun)
	slices.Sort(names)
	b = append(b, `,"Attributes":{`...)
	for i, k := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = sqsjson.AppendString(b, k)
		b = append(b, ':')
		switch k {
		case sqsjson.AttrOriginalOf:
			b = sqsjson.AppendString(b, dlqARN)
		case sqsjson.AttrTransformRun:
			b = sqsjson.AppendString(b, run)
		default:
			b = sqsjson.AppendString(b, m.Attributes[k])
		}
	}
	b = append(b, '}')

	if m.MD5OfMessageAttributes != "" {
		b = append(b, `,"MD5OfMessageAttributes":`...)
		b = sqsjson.AppendString(b, m.MD5OfMessageAttributes)
	}
	if len(m.MessageAttributes) > 0 {
		names = names[:0]
		for k := range m.MessageAttributes {
			names = append(names, k)
		}
		slices.Sort(names)
		b = append(b, `,"MessageAttributes":{`...)
		for i, k := range names {
			if i > 0 {
				b = append(b, ',')
			}
			v := m.MessageAttributes[k]
			b = sqsjson.AppendString(b, k)
			b = append(b, `:{"DataType":`...)
			b = sqsjson.AppendString(b, v.DataType)
			if v.StringValue != nil {
				b = append(b, `,"StringValue":`...)
				b = sqsjson.AppendString(b, *v.StringValue)
			}
			if len(v.BinaryValue) > 0 {
				b = append(b, `,"BinaryValue":"`...)
				b = base64.StdEncoding.AppendEncode(b, v.BinaryValue)
				b = append(b, '"')
			}
			b = append(b, '}')
		}
		b = append(b, '}')
	}
	return append(b, "}\n"...), names
}
