package classify

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestErrorMeanings: each row of errorMeanings, and the orders between rows
// that matter.
func TestErrorMeanings(t *testing.T) {
	tests := []struct {
		text string
		kind string
		v    Verdict
	}{
		{"card_declined: insufficient_funds", "payment decline", VerdictData},
		{"Stripe.StripeException: Your card has expired.", "payment decline", VerdictData},
		{"Refused: Do Not Honour", "payment decline", VerdictData},
		{"CardError: Your card's security code is incorrect. (incorrect_cvc)", "payment decline", VerdictData},
		{"card_declined: card_velocity_exceeded", "payment decline", VerdictData}, // not a limit exceeded
		{"card_declined: processing_error", "decline the issuer asks to retry", VerdictTransient},
		{"ValidationError: unsupported version 2", "code or contract", VerdictPoison},
		{"TypeError: Cannot read properties of undefined (reading 'status')", "code or contract", VerdictPoison},
		{"System.NullReferenceException: Object reference not set to an instance of an object.", "code or contract", VerdictPoison},
		{"HttpRequestException: Response status code does not indicate success: 429 (Too Many Requests).", "throttling", VerdictTransient},
		{"ProvisionedThroughputExceededException: Rate of requests exceeds the allowed throughput.", "throttling", VerdictTransient},
		{"EventAgeExceeded", "expired while waiting", VerdictTransient},
		{"LambdaAction: Failed to invoke lambda function. Received Server error from Lambda. The error code is 429", "throttling", VerdictTransient},
		{"LambdaAction: Lambda was unable to decrypt the environment variables because KMS access was denied", "missing target or permission", VerdictTransient},
		{"customer service unavailable: customer C-1 not found", "dependency unavailable", VerdictTransient},
		{"context deadline exceeded", "timeout", VerdictTransient},
		{"upstream returned HTTP 503", "server error (5xx)", VerdictTransient},
		{"connect ECONNREFUSED 10.0.0.7:5432", "connection error", VerdictTransient},
		{"NoSuchBucket: The specified bucket does not exist", "missing target or permission", VerdictTransient},
		{"ResourceNotFoundException: Function not found: arn:aws:lambda:us-east-1:1:function:x", "missing target or permission", VerdictTransient},
		{`insert or update on table "stock" violates foreign key constraint "stock_location_fkey"`, "missing referenced row", VerdictData},
		{"LocationNotFound: location WH-MUC-3 not found", "missing referenced row", VerdictData},
		{"ActiveRecord::RecordNotFound: Couldn't find Customer with 'id'=42", "missing referenced row", VerdictData},
		{"duplicate key value violates unique constraint \"orders_pkey\"", "constraint or duplicate", VerdictData},
		{"ValidationError: amount must be a number", "validation", VerdictData},
		// A decode failure in a validator's words is still a decode failure.
		{"ValidationError: request body is not a valid JSON document", "code or contract", VerdictPoison},
		{"ValidationError: the payload could not be parsed", "code or contract", VerdictPoison},
		{"InvalidMessage: unable to read the payload (invalid value at offset 0)", "code or contract", VerdictPoison},
		{"RejectedEvent: message body is truncated", "code or contract", VerdictPoison},
		{"failed to process message ord-1: invalid quantity", "validation", VerdictData},
		{"RetryAttemptsExhausted: function error Unhandled", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			m := phraseMeaningOf(tt.text)
			if diff := cmp.Diff([]string{tt.kind, string(tt.v)}, []string{m.kind, string(m.verdict)}); diff != "" {
				t.Errorf("[kind verdict] (-want +got)\n%s", diff)
			}
		})
	}
}

func TestFieldRole(t *testing.T) {
	for path, want := range map[string]string{
		"status": "contract", "event_type": "contract", "status_code": "contract", "items[].kind": "contract",
		"tenant": "reference", "warehouseId": "reference", "args[].location_id": "reference", "site_code": "reference",
		"customer.id": "reference", "order_id": "reference", "note": "", "carrier": "reference",
	} {
		if got := fieldRole(path); got != want {
			t.Errorf("fieldRole(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestPatternsOf(t *testing.T) {
	tests := []struct {
		in   string
		want uint8
	}{
		{"reports/ACME+Corp/Q1+%28final%29.csv", patEncoded | patPlus | patUpper | patLower},
		{"2024/03/10/batch-1.csv", patLower},
		{"12345", patDigits},
		{"3f2b8c1e-9d4a-4e8b-a1c2-0123456789ab", patUUID | patLower},
		{"Müller", patUpper | patLower | patNonASCII},
		{"two words", patLower | patSpace},
	}
	for _, tt := range tests {
		if got := patternsOf([]byte(tt.in)); got != tt.want {
			t.Errorf("patternsOf(%q) = %08b, want %08b", tt.in, got, tt.want)
		}
	}
}
