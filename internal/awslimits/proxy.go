// Package awslimits is a proxy in front of moto that refuses what AWS
// refuses and moto 5.2.1 accepts: the documented lengths of what mfdlq
// writes. A test that sends through it fails as production would, where
// moto would let an over-long value through.
//
// What it enforces, each from the API reference or the service's quotas:
//
//   - SNS Publish: Subject "must be less than 100 characters long", with no
//     line breaks or control characters (Publish's reference):
//     InvalidParameter.
//   - SQS TagQueue and CreateQueue's tags: a key 1 to 128 characters, a
//     value at most 256 (SQS's "Quotas related to queues"):
//     InvalidParameterValue.
//   - Lambda Create/UpdateEventSourceMapping: MaximumConcurrency and
//     provisioned mode are exclusive ("you can't use the maximum
//     concurrency setting and provisioned mode at the same time"), and an
//     SQS mapping's MinimumPollers is 2 or more, at most MaximumPollers:
//     InvalidParameterValueException. An update's mode is the mapping's
//     own, read from moto, unless the update sets one.
//
// Everything else passes through unchanged. Refused counts the refusals
// per action, so a test can assert that a limit was really reached.
package awslimits

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mfdlq/mfdlq/internal/sqsproxy"
	"github.com/mfdlq/mfdlq/internal/standin"
)

// The limits, as AWS documents them.
const (
	MaxSubject     = 99 // "less than 100 characters"
	MaxTagKey      = 128
	MaxTagValue    = 256
	maxRequestBody = 8 << 20
)

// Proxy is the limits proxy; it is an http.Handler.
type Proxy struct {
	target string
	proxy  *httputil.ReverseProxy

	mu      sync.Mutex
	refused map[string]int
}

// New returns a proxy to target (moto's URL).
func New(target string) (*Proxy, error) {
	proxy, err := standin.To(target)
	if err != nil {
		return nil, err
	}
	return &Proxy{target: strings.TrimRight(target, "/"), proxy: proxy, refused: map[string]int{}}, nil
}

// Refused is how many calls of action (Publish, TagQueue…) the proxy
// refused.
func (p *Proxy) Refused(action string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.refused[action]
}

// ServeHTTP checks one call and passes it on, or refuses it as AWS would.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := standin.Body(r, maxRequestBody)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if strings.HasPrefix(r.URL.Path, "/2015-03-31/event-source-mappings") && (r.Method == http.MethodPost || r.Method == http.MethodPut) {
		if msg := p.mappingProblem(r, body); msg != "" {
			p.count("EventSourceMapping")
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("X-Amzn-Errortype", "InvalidParameterValueException")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"Type":"User","message":%q}`, msg)
			return
		}
	}
	if target := r.Header.Get("X-Amz-Target"); strings.HasPrefix(target, "AmazonSQS.") {
		action := strings.TrimPrefix(target, "AmazonSQS.")
		if msg := sqsProblem(action, body); msg != "" {
			p.count(action)
			sqsproxy.Refuse(w, http.StatusBadRequest, "InvalidParameterValue", "", msg)
			return
		}
	} else if strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		form, _ := url.ParseQuery(string(body))
		if form.Get("Action") == "Publish" {
			if msg := subjectProblem(form); msg != "" {
				p.count("Publish")
				w.Header().Set("Content-Type", "text/xml")
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprintf(w, `<ErrorResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><Error><Type>Sender</Type><Code>InvalidParameter</Code><Message>%s</Message></Error><RequestId>00000000-0000-4000-8000-000000000000</RequestId></ErrorResponse>`, msg)
				return
			}
		}
	}
	p.proxy.ServeHTTP(w, r)
}

func (p *Proxy) count(action string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refused[action]++
}

// subjectProblem is why SNS would refuse a Publish's Subject, or "".
func subjectProblem(form url.Values) string {
	s, ok := form["Subject"]
	if !ok {
		return ""
	}
	subject := s[0]
	switch {
	case subject == "" || utf8.RuneCountInString(subject) > MaxSubject:
		return "Invalid parameter: Subject"
	case strings.ContainsFunc(subject, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return "Invalid parameter: Subject"
	}
	return ""
}

// sqsProblem is why SQS would refuse a TagQueue or CreateQueue's tags, or
// "".
func sqsProblem(action string, body []byte) string {
	var in struct {
		Tags    map[string]string `json:"Tags"`
		TagsOld map[string]string `json:"tags"` // CreateQueue's member is "tags"
	}
	if (action != "TagQueue" && action != "CreateQueue") || json.Unmarshal(body, &in) != nil {
		return ""
	}
	for _, tags := range []map[string]string{in.Tags, in.TagsOld} {
		for k, v := range tags {
			switch {
			case k == "" || utf8.RuneCountInString(k) > MaxTagKey:
				return fmt.Sprintf("Tag key %q must be 1 to %d characters", k, MaxTagKey)
			case utf8.RuneCountInString(v) > MaxTagValue:
				return fmt.Sprintf("Tag value for key %q is %d characters; at most %d", k, utf8.RuneCountInString(v), MaxTagValue)
			}
		}
	}
	return ""
}

// mappingConfig is what mappingProblem reads of an event source mapping.
type mappingConfig struct {
	ScalingConfig *struct {
		MaximumConcurrency *int `json:"MaximumConcurrency"`
	} `json:"ScalingConfig"`
	ProvisionedPollerConfig *struct {
		MinimumPollers *int `json:"MinimumPollers"`
		MaximumPollers *int `json:"MaximumPollers"`
	} `json:"ProvisionedPollerConfig"`
}

// mappingProblem is why Lambda would refuse a Create or Update of an event
// source mapping, or "".
func (p *Proxy) mappingProblem(r *http.Request, body []byte) string {
	var in mappingConfig
	if json.Unmarshal(body, &in) != nil {
		return ""
	}
	provisioned := in.ProvisionedPollerConfig != nil
	if !provisioned && r.Method == http.MethodPut {
		provisioned = p.provisioned(r)
	}
	if in.ScalingConfig != nil && in.ScalingConfig.MaximumConcurrency != nil && provisioned {
		return "MaximumConcurrency cannot be set on an event source mapping in provisioned mode: use ProvisionedPollerConfig"
	}
	if c := in.ProvisionedPollerConfig; c != nil {
		minP, maxP := 2, 200
		if c.MinimumPollers != nil {
			minP = *c.MinimumPollers
		}
		if c.MaximumPollers != nil {
			maxP = *c.MaximumPollers
		}
		if minP < 2 || maxP < minP {
			return fmt.Sprintf("ProvisionedPollerConfig: MinimumPollers %d must be at least 2 and at most MaximumPollers %d", minP, maxP)
		}
	}
	return ""
}

// provisioned tells whether the mapping an update names is in provisioned
// mode now, as moto holds it.
func (p *Proxy) provisioned(r *http.Request) bool {
	req, err := http.NewRequestWithContext(r.Context(), http.MethodGet, p.target+r.URL.Path, nil)
	if err != nil {
		return false
	}
	req.Header.Set("Authorization", r.Header.Get("Authorization"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var cur mappingConfig
	if json.NewDecoder(io.LimitReader(resp.Body, maxRequestBody)).Decode(&cur) != nil {
		return false
	}
	return cur.ProvisionedPollerConfig != nil
}
