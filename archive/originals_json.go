package archive

import (
	"encoding/base64"
	"slices"
	"unicode/utf8"

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
	b = appendJSONString(b, m.MessageId)
	if m.MD5OfBody != "" {
		b = append(b, `,"MD5OfBody":`...)
		b = appendJSONString(b, m.MD5OfBody)
	}
	b = append(b, `,"Body":`...)
	b = appendJSONString(b, m.Body)

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
		b = appendJSONString(b, k)
		b = append(b, ':')
		switch k {
		case sqsjson.AttrOriginalOf:
			b = appendJSONString(b, dlqARN)
		case sqsjson.AttrTransformRun:
			b = appendJSONString(b, run)
		default:
			b = appendJSONString(b, m.Attributes[k])
		}
	}
	b = append(b, '}')

	if m.MD5OfMessageAttributes != "" {
		b = append(b, `,"MD5OfMessageAttributes":`...)
		b = appendJSONString(b, m.MD5OfMessageAttributes)
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
			b = appendJSONString(b, k)
			b = append(b, `:{"DataType":`...)
			b = appendJSONString(b, v.DataType)
			if v.StringValue != nil {
				b = append(b, `,"StringValue":`...)
				b = appendJSONString(b, *v.StringValue)
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

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string the way encoding/json
// writes it without HTML escaping: '"' and '\\' escaped, control bytes as
// \b \f \n \r \t or \u00XX, invalid UTF-8 as \ufffd, and U+2028/U+2029
// escaped (JavaScript reads them as line ends). Messages are hostile: the
// line must stay one line and valid JSON whatever the body holds.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
