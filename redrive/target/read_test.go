package target

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aws/smithy-go"
)

func TestTargetFunctionFailureTime(t *testing.T) {
	for _, tt := range []struct {
		f    TargetFunction
		want time.Duration
	}{
		{TargetFunction{Timeout: 10 * time.Second, Retries: 2}, 4 * time.Minute}, // 3×10s + 1m + 2m + 30s
		{TargetFunction{Timeout: 10 * time.Second, Retries: 1}, 110 * time.Second},
		{TargetFunction{Timeout: 10 * time.Second}, 40 * time.Second},
		{TargetFunction{Retries: 0}, 33 * time.Second}, // no timeout read: Lambda's default 3 s
	} {
		if got := tt.f.FailureTime(); got != tt.want {
			t.Errorf("%+v: %s, want %s", tt.f, got, tt.want)
		}
	}
}

func TestIsNotFound(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want bool
	}{
		{&smithy.GenericAPIError{Code: "NotFound"}, true},
		{fmt.Errorf("read: %w", &smithy.GenericAPIError{Code: "ResourceNotFoundException"}), true},
		{&smithy.GenericAPIError{Code: "AccessDeniedException"}, false},
		{errors.New("NotFound"), false},
		{nil, false},
	} {
		if got := IsNotFound(tt.err); got != tt.want {
			t.Errorf("IsNotFound(%v) = %v", tt.err, got)
		}
	}
}
