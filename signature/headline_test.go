package signature

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

const zodIssues = `[
  {
    "received": "PARTIALLY_REFUNDED",
    "code": "invalid_enum_value",
    "options": ["PAID", "REFUNDED", "CANCELLED"],
    "path": ["status"],
    "message": "Invalid enum value. Expected 'PAID' | 'REFUNDED' | 'CANCELLED', received 'PARTIALLY_REFUNDED'"
  }
]`

// TestMultiLineErrors: the error is read whole, not by its first line.
func TestMultiLineErrors(t *testing.T) {
	tests := []struct {
		name, in        string
		headline, value string
		sig             string
	}{
		{"zod issues, bare", zodIssues,
			"1 validation issue: invalid_enum_value at status: Invalid enum value. Expected 'PAID' | 'REFUNDED' | 'CANCELLED', received 'PARTIALLY_REFUNDED'",
			"PARTIALLY_REFUNDED", "<n> validation issue: invalid_enum_value at status: Invalid enum value. Expected 'PAID' | 'REFUNDED' | 'CANCELLED', received '<value>'"},
		{"zod issues after a name", "ZodError: " + zodIssues,
			"ZodError: 1 validation issue: invalid_enum_value at status: Invalid enum value. Expected 'PAID' | 'REFUNDED' | 'CANCELLED', received 'PARTIALLY_REFUNDED'",
			"PARTIALLY_REFUNDED", "ZodError: <n> validation issue: invalid_enum_value at status: Invalid enum value. Expected 'PAID' | 'REFUNDED' | 'CANCELLED', received '<value>'"},
		{"ajv errors", `[{"instancePath":"/amount","keyword":"type","params":{"type":"number"},"message":"must be number"},{"instancePath":"/items","keyword":"type","message":"must be array"}]`,
			"2 validation issues: type at amount: must be number; type at items: must be array", "", "<n> validation issues: type at amount: must be number; type at items: must be array"},
		{"pydantic", "1 validation error for Order\nstatus\n  Input should be 'PAID' or 'REFUNDED' [type=enum, input_value='PARTIALLY_REFUNDED', input_type=str]",
			"1 validation error for Order", "PARTIALLY_REFUNDED", "<n> validation error for Order"},
		{"java root cause", "org.springframework.messaging.MessageHandlingException: error occurred in message handler\n\tat org.springframework.A.b(A.java:1)\nCaused by: com.fasterxml.jackson.databind.exc.InvalidFormatException: Cannot deserialize value of type `Status` from String \"PARTIALLY_REFUNDED\": not one of the values accepted\n\tat x.Y(Y.java:2)",
			"com.fasterxml.jackson.databind.exc.InvalidFormatException: Cannot deserialize value of type `Status` from String \"PARTIALLY_REFUNDED\": not one of the values accepted",
			"PARTIALLY_REFUNDED", "com.fasterxml.jackson.databind.exc.InvalidFormatException: Cannot deserialize value of type `Status` from String \"<value>\": not one of the values accepted"},
		{"banner then the error", "processing batch 7 of orders\nValidationError: amount must be a number\n    at validate (/var/task/v.js:3:9)",
			"ValidationError: amount must be a number", "", "ValidationError: amount must be a number"},
		{"step functions document", `{"Error":"States.TaskFailed","Cause":"{\"errorMessage\":\"customer C-1042 not found\",\"errorType\":\"CustomerNotFound\",\"stackTrace\":[]}"}`,
			"CustomerNotFound: customer C-1042 not found", "", "CustomerNotFound: customer C-<n> not found"},
		{"first line stays", "java.lang.IllegalStateException: order 42 closed\n\tat com.shop.Orders.pay(Orders.java:118)",
			"java.lang.IllegalStateException: order 42 closed", "", "java.lang.IllegalStateException: order <n> closed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := []string{Headline(tt.in), ValueOf(tt.in), Of(tt.in)}
			if diff := cmp.Diff([]string{tt.headline, tt.value, tt.sig}, got); diff != "" {
				t.Errorf("[headline value signature] (-want +got)\n%s", diff)
			}
		})
	}
}

func TestInBody(t *testing.T) {
	tests := []struct {
		name, body  string
		skip        []string
		text, field string
	}{
		{"step functions at $", `{"Error":"States.Timeout","Cause":""}`, nil, "States.Timeout", "Error"},
		{"step functions at $.error, cause JSON", `{"order_id":"o-1","error":{"Error":"CustomerNotFound","Cause":"{\"errorMessage\":\"customer C-7 not found\",\"errorType\":\"CustomerNotFound\",\"requestId\":\"r\",\"stackTrace\":[\"at h (/var/task/i.js:1:1)\"]}"}}`,
			nil, "CustomerNotFound: customer C-7 not found", "error"},
		{"catch result under any name", `{"order_id":"o-1","taskResult":{"Error":"Lambda.TooManyRequestsException","Cause":"Rate Exceeded."}}`,
			nil, "Lambda.TooManyRequestsException: Rate Exceeded.", "taskResult"},
		{"lambda document in the body", `{"errorType":"PaymentGatewayTimeout","errorMessage":"no answer in 3000 ms"}`, nil, "PaymentGatewayTimeout: no answer in 3000 ms", "errorMessage"},
		{"wrapper error string", `{"payload":{"a":1},"error":"connect ECONNREFUSED 10.0.0.7:5432"}`, nil, "connect ECONNREFUSED 10.0.0.7:5432", "error"},
		{"wrapper error object", `{"payload":{"a":1},"error":{"name":"ValidationError","message":"amount must be a number"}}`, nil, "ValidationError: amount must be a number", "error"},
		{"failureReason", `{"order_id":"o-1","failureReason":"SkuNotFound: SKU-9123"}`, nil, "SkuNotFound: SKU-9123", "failureReason"},
		{"multi-line issues in error_message", `{"order_id":"o-1","error_message":` + quoteJSON(zodIssues) + `}`, nil,
			zodIssues, "error_message"},
		{"a field the healthy messages have is skipped", `{"order_id":"o-1","failureReason":"card declined"}`, []string{"failureReason"}, "", ""},
		{"null and false are no error", `{"error":null,"failure_reason":false}`, nil, "", ""},
		{"no hint", `{"order_id":"o-1","status":"PAID"}`, nil, "", ""},
		{"not an object", `["error"]`, nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			skip := func(f string) bool {
				for _, s := range tt.skip {
					if s == f {
						return true
					}
				}
				return false
			}
			text, field := InBody([]byte(tt.body), skip)
			if diff := cmp.Diff([]string{tt.text, tt.field}, []string{text, field}); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func quoteJSON(s string) string {
	b := []byte{'"'}
	for _, r := range s {
		switch r {
		case '"':
			b = append(b, '\\', '"')
		case '\n':
			b = append(b, '\\', 'n')
		default:
			b = append(b, string(r)...)
		}
	}
	return string(append(b, '"'))
}
