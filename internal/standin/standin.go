// Package standin is the front every local stand-in in internal/ puts
// before the real local server (moto), whatever service it stands in for:
// the pass-through to that server, and a call's body read and put back so
// a stand-in can look at a call and still pass it on. sqsproxy adds what
// the SQS stand-ins share on top; the CloudWatch, STS and Lambda stand-ins
// (alarmhistory, compositealarms, stsdeny, lambdainvoke) use it as it is.
package standin

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
)

// To is the pass-through to the server at backend (a URL).
func To(backend string) (*httputil.ReverseProxy, error) {
	u, err := url.Parse(backend)
	if err != nil {
		return nil, err
	}
	return httputil.NewSingleHostReverseProxy(u), nil
}

// Body reads at most limit bytes of the call's body (limit <= 0: all of
// it) and puts them back, so the call can still be passed on.
func Body(r *http.Request, limit int64) ([]byte, error) {
	var src io.Reader = r.Body
	if limit > 0 {
		src = io.LimitReader(r.Body, limit)
	}
	body, err := io.ReadAll(src)
	if err != nil {
		return nil, err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	return body, nil
}
