package changes

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/arn"

	"github.com/mfdlq/mfdlq/trailapi"
)

// Reasons an event is dropped, as changes.json and the report say them.
const (
	NoiseOutside  = "outside the window"
	NoiseRead     = "read-only calls"
	NoiseLogs     = "log groups and streams (every function writes them)"
	NoiseSessions = "role assumptions and sessions"
	NoiseKMSUse   = "KMS data-key use (every encrypted message)"
	NoiseNetwork  = "network interfaces (Lambda in a VPC)"
	NoiseSignIn   = "console sign-ins"
	NoiseOther    = "other writes, not tied to this queue and not deploys"
)

// versioned is an event name carrying its API version, as Lambda's do:
// UpdateFunctionCode20150331v2.
var versioned = regexp.MustCompile(`^([A-Za-z]+?)(\d{8}(v\d+)?)$`)

// PlainName is an event name without the API version CloudTrail appends to
// some services' names.
func PlainName(name string) string {
	if m := versioned.FindStringSubmatch(name); m != nil {
		return m[1]
	}
	return name
}

// readPrefixes start the names of calls that change nothing.
var readPrefixes = []string{"Get", "List", "Describe", "Head", "Lookup", "BatchGet", "Search", "Query", "Scan", "Select", "Check", "Validate", "Test", "Estimate", "Preview"}

// noise is the writes every account makes all the time, by service; an
// empty name list means every call of the service.
var noise = []struct {
	source string
	names  []string
	reason string
}{
	{"logs.amazonaws.com", []string{"CreateLogStream", "CreateLogGroup", "PutLogEvents", "PutRetentionPolicy"}, NoiseLogs},
	{"sts.amazonaws.com", nil, NoiseSessions},
	{"kms.amazonaws.com", []string{"Decrypt", "Encrypt", "GenerateDataKey", "GenerateDataKeyWithoutPlaintext", "ReEncrypt", "GenerateRandom"}, NoiseKMSUse},
	{"ec2.amazonaws.com", []string{"CreateNetworkInterface", "DeleteNetworkInterface", "AttachNetworkInterface", "DetachNetworkInterface"}, NoiseNetwork},
	{"signin.amazonaws.com", nil, NoiseSignIn},
}

// deploys are the calls that deploy something, anywhere in the account: a
// producer is often one of them.
var deploys = map[string][]string{
	"lambda.amazonaws.com":         {"UpdateFunctionCode", "UpdateFunctionConfiguration", "PublishVersion", "CreateAlias", "UpdateAlias", "CreateFunction", "PutFunctionConcurrency", "DeleteFunctionConcurrency", "PutProvisionedConcurrencyConfig"},
	"ecs.amazonaws.com":            {"UpdateService", "CreateService"},
	"codedeploy.amazonaws.com":     {"CreateDeployment"},
	"cloudformation.amazonaws.com": {"UpdateStack", "CreateStack", "DeleteStack", "ExecuteChangeSet", "CreateChangeSet", "UpdateStackSet"},
	"apigateway.amazonaws.com":     {"CreateDeployment", "UpdateStage"},
	"ssm.amazonaws.com":            {"PutParameter", "DeleteParameter", "DeleteParameters"},
	"appconfig.amazonaws.com":      {"StartDeployment", "CreateHostedConfigurationVersion"},
}

// resourceParams name what a call changed, in the order they are tried.
var resourceParams = []string{"functionName", "queueUrl", "queueName", "roleName", "keyId", "service", "serviceName", "stackName", "deploymentGroupName", "applicationName", "restApiId", "name", "uUID", "uuid"}

// Filter sorts events into kept (related to rel or deploy-like) and noise
// (counted by reason), against the range w and the first failure.
func Filter(events []trailapi.Event, rel Resources, w Range) (kept []Event, dropped []Noise) {
	ids := rel.identifiers()
	counts := map[string]int{}
	first := w.From
	if w.FirstFailure != nil {
		first = *w.FirstFailure
	}
	for _, te := range events {
		ev, reason := judge(te, ids, w)
		if reason != "" {
			counts[reason]++
			continue
		}
		ev.Offset = int64(ev.Time.Sub(first) / time.Second)
		kept = append(kept, ev)
	}
	for r, n := range counts {
		dropped = append(dropped, Noise{Reason: r, Count: n})
	}
	sort.Slice(dropped, func(i, j int) bool {
		if dropped[i].Count != dropped[j].Count {
			return dropped[i].Count > dropped[j].Count
		}
		return dropped[i].Reason < dropped[j].Reason
	})
	Order(kept)
	return kept, dropped
}

// judge keeps an event (reason "") or says why it is noise.
func judge(te trailapi.Event, ids map[string]string, w Range) (Event, string) {
	name := PlainName(te.Name)
	if te.Time.Before(w.From) || te.Time.After(w.To) {
		return Event{}, NoiseOutside
	}
	if te.ReadOnly || isRead(name) {
		return Event{}, NoiseRead
	}
	for _, n := range noise {
		if te.Source == n.source && (n.names == nil || slices.Contains(n.names, name)) {
			return Event{}, n.reason
		}
	}
	ev := Event{ID: te.ID, Time: te.Time.UTC(), Name: name, Source: te.Source, User: te.User}
	if name != te.Name {
		ev.RawName = te.Name
	}
	if res, why, ok := relatedTo(te, ids); ok {
		ev.Resource, ev.Relation, ev.Reason = res, Related, why
	} else if slices.Contains(deploys[te.Source], name) {
		ev.Resource, ev.Relation = resourceOf(te), Deploy
		ev.Reason = "a deploy in the account (" + service(te.Source) + ")"
	} else {
		return Event{}, NoiseOther
	}
	ev.What = what(name, ev.Resource)
	return ev, ""
}

func isRead(name string) bool {
	for _, p := range readPrefixes {
		if strings.HasPrefix(name, p) && len(name) > len(p) && name[len(p)] >= 'A' && name[len(p)] <= 'Z' {
			return true
		}
	}
	return false
}

// service is an event source's short name: lambda.amazonaws.com → lambda.
func service(source string) string {
	s, _, _ := strings.Cut(source, ".")
	return s
}

// identifiers maps every name of a related resource to the reason it is
// related.
func (r Resources) identifiers() map[string]string {
	ids := map[string]string{}
	add := func(names []string, why string) {
		for _, n := range names {
			if n != "" {
				ids[shortName(n)] = fmt.Sprintf(why, shortName(n))
			}
		}
	}
	add(r.Keys, "%s, the queues' KMS key")
	add(r.Roles, "%s, a consumer's execution role")
	add(r.Mappings, "%s, the event source mapping that reads the queue")
	add(r.Queues, "%s, one of this DLQ's queues")
	add(r.Functions, "%s, a consumer of the queue")
	return ids
}

// relatedTo finds a related resource among what the event names.
func relatedTo(te trailapi.Event, ids map[string]string) (resource, why string, ok bool) {
	var names []string
	for _, r := range te.Resources {
		names = append(names, r.Name)
	}
	for _, k := range resourceParams {
		if v, ok := te.Parameters[k]; ok {
			names = append(names, v)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(te.Parameters)) {
		names = append(names, te.Parameters[k])
	}
	for _, n := range names {
		s := shortName(n)
		if why, ok := ids[s]; ok {
			return s, why, true
		}
	}
	return "", "", false
}

// resourceOf names what a deploy changed.
func resourceOf(te trailapi.Event) string {
	for _, k := range resourceParams {
		if v, ok := te.Parameters[k]; ok && v != "" {
			return shortName(v)
		}
	}
	for _, r := range te.Resources {
		if r.Name != "" {
			return shortName(r.Name)
		}
	}
	return service(te.Source)
}

// shortName is the name inside an ARN, a queue URL or an alias path:
// arn:aws:lambda:…:function:orders:live → orders; https://…/123/orders → orders;
// arn:aws:iam::1:role/path/orders-role → orders-role; alias/k → alias/k.
func shortName(s string) string {
	if a, err := arn.Parse(s); err == nil {
		res := a.Resource
		if rest, ok := strings.CutPrefix(res, "function:"); ok {
			name, _, _ := strings.Cut(rest, ":")
			return name
		}
		if strings.HasPrefix(res, "alias/") {
			return res
		}
		if i := strings.LastIndexAny(res, "/:"); i >= 0 {
			return res[i+1:]
		}
		return res
	}
	if strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://") {
		return s[strings.LastIndex(strings.TrimRight(s, "/"), "/")+1:]
	}
	return s
}
