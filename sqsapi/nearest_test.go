package sqsapi

import "testing"

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"orders-dlq", "orders-dlq", 0},
		{"order-dlq", "orders-dlq", 1},
		{"ordres-dlq", "orders-dlq", 1}, // a swapped pair
		{"orders-dql", "orders-dlq", 1},
		{"orders", "orders-dlq", 4},
		{"paymnts-dlq", "payments-dlq", 1},
		{"ä-dlq", "a-dlq", 1},
	}
	for _, tc := range tests {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestNearestName(t *testing.T) {
	queues := []string{"orders", "orders-dlq", "orders-dlq-2", "payments-dlq", "Refunds-DLQ"}
	tests := []struct {
		name, want string
	}{
		{"order-dlq", "orders-dlq"},
		{"orders-dql", "orders-dlq"},
		{"refunds-dlq", "Refunds-DLQ"}, // SQS names are case-sensitive; the suggestion is the real one
		{"payment-dlq", "payments-dlq"},
		{"inventory-dlq", ""}, // nothing close
		{"ab", ""},            // a short name suggests only within one letter
		{"orders-dlq", "orders-dlq-2"},
	}
	for _, tc := range tests {
		got, ok := nearestName(tc.name, append([]string{}, queues...))
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("nearestName(%q) = %q, %v; want %q", tc.name, got, ok, tc.want)
		}
	}
}
