package classify

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// A value no baseline message has is news, but not always a new schema. A
// new tenant, site or warehouse is a new business value: the consumer
// fails because a row it needs is missing (import it, then redrive), not
// because it cannot read the message. A field's name says which: a
// status, a type, a kind name the contract's own vocabulary; a tenant, a
// warehouse_id, a site name rows of the business.

// contractFields are names whose values are the contract's vocabulary: a
// value none of the baseline has is a contract change.
var contractFields = []string{"status", "state", "type", "kind", "event", "eventtype", "action", "operation", "op", "version",
	"schema", "format", "mode", "method", "category", "currency", "unit", "phase", "stage", "command", "intent", "verb", "channel"}

// referenceFields are names whose values name rows of the business.
var referenceFields = []string{"tenant", "site", "warehouse", "location", "store", "shop", "branch", "account", "customer",
	"merchant", "org", "organization", "organisation", "company", "partner", "vendor", "supplier", "seller", "region", "market",
	"depot", "facility", "plant", "hub", "station", "venue", "restaurant", "hotel", "building", "city", "country", "user", "client",
	"device", "sensor", "fleet", "vehicle", "team", "workspace", "project", "sku", "product", "item", "carrier", "route", "zone",
	"office", "brand", "catalog", "catalogue", "dealer", "agent", "driver", "courier", "terminal", "dock", "bin", "lane", "line"}

// referenceSuffixes turn a name into a reference: warehouse_id, tenantId,
// site_code, storeRef.
var referenceSuffixes = []string{"id", "code", "key", "ref", "name", "slug", "number", "no"}

// fieldRole reads a field path's last name: "contract", "reference" or "".
func fieldRole(path string) string {
	name, words := fieldName(path)
	if len(words) == 0 {
		return ""
	}
	if len(words) == 1 && slices.Contains(referenceSuffixes, words[0]) && len(name) < len(path) {
		// customer.id, site.code: the parent names the row.
		return fieldRole(strings.TrimRight(path[:len(path)-len(name)], ".[]"))
	}
	return wordsRole(words)
}

// fieldName is a field path's last name and its words, lower case:
// "order.warehouseId" → "warehouseId", [warehouse id].
func fieldName(path string) (string, []string) {
	name := path[strings.LastIndexAny(path, ".]")+1:]
	return name, strings.Fields(normalise(name))
}

// wordsRole is the role of a field name split into lower-case words.
func wordsRole(words []string) string {
	joined := strings.Join(words, "")
	for _, c := range contractFields {
		if joined == c || words[len(words)-1] == c && len(words) <= 2 {
			return "contract"
		}
	}
	base := words
	if len(words) > 1 && slices.Contains(referenceSuffixes, words[len(words)-1]) {
		base = words[:len(words)-1]
		if slices.Contains(contractFields, strings.Join(base, "")) {
			return "contract" // status_code, type_name
		}
	}
	for _, w := range base {
		if slices.Contains(referenceFields, w) {
			return "reference"
		}
	}
	if len(words) > 1 && slices.Contains(referenceSuffixes, words[len(words)-1]) && words[len(words)-1] != "name" {
		return "reference" // any *_id, *_code: a row's key
	}
	return ""
}

// newBusinessValue rewrites a value drift shared by (nearly) all of a
// group that is no contract change: the field names a row of the business,
// or the error says a referenced row is missing. It is evidence, not
// poison; the error decides.
func newBusinessValue(d Drift, said meaning) (Drift, bool) {
	if d, ok := unrelatedDrift(d, said); ok {
		return d, true
	}
	if d.Kind != DriftValue || !d.Contract || fieldRole(d.Field) == "contract" {
		return d, false
	}
	missingRow := said.missingRow()
	if fieldRole(d.Field) != "reference" && !missingRow {
		return d, false
	}
	d.Contract, d.Reference = false, true
	d.Text = strings.TrimSuffix(d.Text, driftTail(true))
	switch {
	case missingRow:
		d.Text += fmt.Sprintf(": a new %s the data lacks, not a new schema — the error names a missing row (%q): fix or import the rows, then redrive", fieldNoun(d.Field), said.words)
	default:
		d.Text += fmt.Sprintf(": a new %s, a business value rather than a new schema — not by itself a contract change; the error decides", fieldNoun(d.Field))
	}
	return d, true
}

// fieldNoun is how the evidence names a field's value: "tenant", "warehouse".
func fieldNoun(path string) string {
	_, words := fieldName(path)
	if len(words) > 1 && slices.Contains(referenceSuffixes, words[len(words)-1]) {
		words = words[:len(words)-1]
	}
	if len(words) == 0 {
		return "value"
	}
	return strings.Join(words, " ") + " value"
}

// unrelatedDrift rewrites a shared new value, pattern or missing field
// that is unrelated to the format: a field about the message's delivery
// (a trace id, a time, a host, an attempt), or any field that is not the
// contract's vocabulary when the error says a dependency failed (HTTP 503,
// ECONNREFUSED, a throttle): the messages that reached the failing
// dependency share something (express orders call the express carrier),
// and that shared value is not what the consumer failed on. A changed JSON
// type, or a contract field, still decides; a timeout is no such error (an
// outsized message times out too).
func unrelatedDrift(d Drift, said meaning) (Drift, bool) {
	if d.Contract && d.Kind != DriftType && isMetadata(d.Field) {
		d.Contract = false
		d.Text = strings.TrimSuffix(d.Text, driftTail(true)) + ": not a contract change — a field about the message's delivery (ids of traces and requests, times, hosts, attempts), not its format"
		return d, true
	}
	transient := said.verdict == VerdictTransient && (said.fact == nil || !said.fact.timeout && !said.fact.limit)
	if transient && said.fact == nil && said.kind == "timeout" {
		transient = false // a timeout is ambiguous: an outsized message times out too
	}
	if d.Contract && d.Kind != DriftType && fieldRole(d.Field) != "contract" && transient {
		d.Contract = false
		d.Text = strings.TrimSuffix(d.Text, driftTail(true)) + fmt.Sprintf(": not a contract change — the error names %s: a dependency failed for the messages that share it, and the field is not the contract's vocabulary", saidName(said))
		return d, true
	}
	return d, false
}

// saidName names what the error says: its fact, else its words.
func saidName(said meaning) string {
	if said.fact != nil {
		return said.fact.taxonomy + " " + said.fact.code
	}
	return strconv.Quote(said.words)
}

// metadataWords name fields about a message's delivery rather than its
// content: a drift in them is no contract change.
var metadataWords = map[string]bool{"trace": true, "span": true, "correlation": true, "causation": true, "request": true,
	"traceparent": true, "tracestate": true, "timestamp": true, "ts": true, "host": true, "hostname": true, "pod": true,
	"instance": true, "attempt": true, "attempts": true, "retry": true, "retries": true, "ttl": true, "producer": true,
	"sender": true, "agent": true, "ip": true, "at": true}

// isMetadata tells a field path whose last name is about delivery:
// trace_id, correlationId, sent_at, retry_count, host.
func isMetadata(path string) bool {
	_, words := fieldName(path)
	if len(words) == 0 {
		return false
	}
	if metadataWords[words[len(words)-1]] {
		return true
	}
	return len(words) > 1 && metadataWords[words[0]]
}
