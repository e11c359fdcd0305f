// Package stsdeny is a stand-in for what moto does not do: refuse an
// AssumeRole. moto's STS lets any caller assume any role, even one that
// does not exist or sits in a suspended account; real STS answers
// AccessDenied (403) for a role missing, a trust policy that does not name
// the caller, and an account that is suspended. The Proxy forwards every
// request to the local AWS and answers that refusal for the role ARNs and
// accounts it is told to deny, as STS's query protocol writes it.
package stsdeny

import (
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mfdlq/mfdlq/internal/standin"
)

// Proxy forwards to the local AWS and refuses the AssumeRole calls of the
// denied roles and accounts.
type Proxy struct {
	next *httputil.ReverseProxy

	mu       sync.Mutex
	roles    map[string]bool // role ARN → denied
	accounts map[string]bool // account id → every role in it denied
	// Denied counts the refusals answered.
	Denied atomic.Int64
}

// New returns a proxy to target (the local AWS endpoint).
func New(target string) (*Proxy, error) {
	next, err := standin.To(target)
	if err != nil {
		return nil, err
	}
	return &Proxy{next: next, roles: map[string]bool{}, accounts: map[string]bool{}}, nil
}

// DenyRole makes every AssumeRole of arn fail: a role missing from its
// account, or one whose trust policy does not name the caller.
func (p *Proxy) DenyRole(arn string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.roles[arn] = true
}

// DenyAccount makes every AssumeRole into account fail: a suspended
// account, whose roles STS no longer issues sessions for.
func (p *Proxy) DenyAccount(account string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.accounts[account] = true
}

func (p *Proxy) denied(role string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	parts := strings.Split(role, ":")
	return p.roles[role] || (len(parts) > 4 && p.accounts[parts[4]])
}

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		body, err := standin.Body(r, 1<<20)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		form, _ := url.ParseQuery(string(body))
		if role := form.Get("RoleArn"); form.Get("Action") == "AssumeRole" && p.denied(role) {
			p.Denied.Add(1)
			w.Header().Set("Content-Type", "text/xml")
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprintf(w, `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>User: arn:aws:iam::123456789012:user/moto is not authorized to perform: sts:AssumeRole on resource: %s</Message></Error><RequestId>stsdeny</RequestId></ErrorResponse>`, role)
			return
		}
	}
	p.next.ServeHTTP(w, r)
}
