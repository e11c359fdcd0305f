package s3api

import (
	"net/http"

	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// forbidden is the error the SDK returns for an HTTP 403.
func forbidden() error {
	return &smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: &http.Response{StatusCode: http.StatusForbidden}}}
}
