package sqsjson

import "encoding/base64"

// AttributesValue is a message's attributes as a jq program sees them
// ($attributes for --transform and --key): the SQS API's shape, BinaryValue
// base64 as the API writes it; {} when there are none.
func AttributesValue(attrs map[string]MessageAttributeValue) map[string]any {
	out := make(map[string]any, len(attrs))
	for name, a := range attrs {
		v := map[string]any{"DataType": a.DataType}
		if a.StringValue != nil {
			v["StringValue"] = *a.StringValue
		}
		if a.BinaryValue != nil {
			v["BinaryValue"] = base64.StdEncoding.EncodeToString(a.BinaryValue)
		}
		out[name] = v
	}
	return out
}
