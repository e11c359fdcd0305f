package transform

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"sort"

	"github.com/mfdlq/mfdlq/sqsjson"
)

// attributesFrom reads what set_attributes gave back: an object of
// {DataType, StringValue} or {DataType, BinaryValue (base64)}. Names and
// values are checked by Limits.Check; only the shape is checked here.
func attributesFrom(v any) (map[string]sqsjson.MessageAttributeValue, error) {
	if v == nil {
		return nil, nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("attributes must be an object of {DataType, StringValue}, not %s", typeOf(v))
	}
	names := make([]string, 0, len(obj))
	for name := range obj {
		names = append(names, name)
	}
	sort.Strings(names)
	out := make(map[string]sqsjson.MessageAttributeValue, len(obj))
	for _, name := range names {
		a, ok := obj[name].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("attribute %q must be {DataType, StringValue}, not %s", name, typeOf(obj[name]))
		}
		var av sqsjson.MessageAttributeValue
		if av.DataType, ok = a["DataType"].(string); !ok {
			return nil, fmt.Errorf("attribute %q has no DataType string", name)
		}
		for k, field := range a {
			switch k {
			case "DataType":
			case "StringValue":
				s, ok := field.(string)
				if !ok {
					return nil, fmt.Errorf("attribute %q: StringValue must be a string (a Number's too: \"42\")", name)
				}
				av.StringValue = &s
			case "BinaryValue":
				s, ok := field.(string)
				b, err := base64.StdEncoding.DecodeString(s)
				if !ok || err != nil {
					return nil, fmt.Errorf("attribute %q: BinaryValue must be a base64 string", name)
				}
				av.BinaryValue = b
			default:
				return nil, fmt.Errorf("attribute %q: unknown field %q (DataType, StringValue or BinaryValue)", name, k)
			}
		}
		out[name] = av
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// sameAttributes compares two attribute sets by name, type and value.
func sameAttributes(a, b map[string]sqsjson.MessageAttributeValue) bool {
	if len(a) != len(b) {
		return false
	}
	for name, x := range a {
		y, ok := b[name]
		if !ok || x.DataType != y.DataType || (x.StringValue == nil) != (y.StringValue == nil) ||
			x.StringValue != nil && *x.StringValue != *y.StringValue || !bytes.Equal(x.BinaryValue, y.BinaryValue) {
			return false
		}
	}
	return true
}

// typeOf names a jq value's type for an error.
func typeOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "a number"
}
