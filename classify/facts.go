package classify

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws/retry"

	"github.com/mfdlq/mfdlq/signature"
)

// fact is a typed fact read from an error text: a code of a maintained
// taxonomy (an SQLSTATE, an HTTP status, an AWS error code, a gRPC status,
// an errno name, a Lambda errorType, a runtime's exception type) and what
// that taxonomy says it means. A fact decides before any English phrase:
// the code means the same in every language the message is written in.
// docs/classify.md cites each taxonomy's source, row by row.
type fact struct {
	taxonomy string  // "SQLSTATE", "HTTP status", "AWS error code" …
	code     string  // "42804", "503", "ConditionalCheckFailedException"
	class    string  // what the code means: "class 42: the code and the schema disagree"
	verdict  Verdict // what the class means for the message
	wait     bool    // retry, with more wait (a throttle)
	// timeout: the failure is a time limit, which either a slow dependency
	// or an outsized message hits; the group is compared (timeouts.go).
	timeout bool
	// limit: a memory limit, as ambiguous as a timeout.
	limit bool
	// missing: the message names a row that does not exist.
	missing bool
}

func (r row) fact(taxonomy, code string) fact {
	return fact{taxonomy: taxonomy, code: code, class: r.class, verdict: r.verdict, wait: r.wait, timeout: r.timeout, limit: r.limit, missing: r.missing}
}

// String names the fact the way the evidence does:
// "SQLSTATE 42804 (class 42: the code and the schema disagree)".
func (f fact) String() string { return fmt.Sprintf("%s %s (%s)", f.taxonomy, f.code, f.class) }

// maxFactInput bounds how much of an error text is searched for facts.
const maxFactInput = 4 << 10

// factOf reads the deciding fact of an error text: the root cause's
// headline first, then the whole text. Taxonomies are tried from the most
// specific (the runtime's own error type, an AWS error code, an SQLSTATE)
// to the most general (an HTTP status), so "ConditionalCheckFailedException
// … StatusCode: 400" is decided by the code, not the status.
func factOf(text string) (fact, bool) {
	if text == "" {
		return fact{}, false
	}
	if len(text) > maxFactInput {
		text = strings.ToValidUTF8(text[:maxFactInput], "")
	}
	head := signature.Headline(text)
	for _, t := range []string{head, text} {
		for _, read := range factReaders {
			if f, ok := read(t); ok {
				return f, true
			}
		}
		if t == head && head == strings.TrimSpace(text) {
			break
		}
	}
	return fact{}, false
}

// factReaders are tried in order: see factOf.
var factReaders = []func(string) (fact, bool){
	lambdaFact, statesFact, awsCodeFact, sqlstateFact, vendorDBFact, mongoFact, redisFact, searchFact, serverWordingFact, grpcFact, errnoFact, runtimeMessageFact, leadingTypeFact, httpFact, anyTypeFact,
}

// --- Lambda ---

var lambdaTimeout = regexp.MustCompile(`Task timed out after (\d+(?:\.\d+)?) seconds`)

// lambdaFact reads Lambda's errorType values ("Sandbox.Timedout",
// "Runtime.*") and its timeout message, which names the function's
// configured timeout.
func lambdaFact(t string) (fact, bool) {
	if m := lambdaTimeout.FindStringSubmatch(t); m != nil {
		secs, _ := strconv.ParseFloat(m[1], 64)
		return fact{taxonomy: "Lambda errorType", code: "Sandbox.Timedout", verdict: VerdictTransient, timeout: true,
			class: fmt.Sprintf("the function ran into its configured timeout of %.0f s", secs)}, true
	}
	return tokenFact(t, "Lambda errorType", lambdaErrorTypes)
}

// --- AWS error codes ---

// awsCodeFact reads an AWS error code: the SDK's own retry classification
// (aws-sdk-go-v2's retry.DefaultThrottleErrorCodes and
// retry.DefaultRetryableErrorCodes, referenced, not copied), then the
// documented non-retryable codes (awsCodes). A DynamoDB
// TransactionCanceledException is judged by its cancellation reasons.
func awsCodeFact(t string) (fact, bool) {
	for _, tok := range tokens(t) {
		tok = lastName(tok)
		if _, ok := retry.DefaultThrottleErrorCodes[tok]; ok {
			return fact{taxonomy: "AWS error code", code: tok, verdict: VerdictTransient, wait: true,
				class: "a throttle by the SDK's retry classification: retryable, with more wait"}, true
		}
		if _, ok := retry.DefaultRetryableErrorCodes[tok]; ok {
			return fact{taxonomy: "AWS error code", code: tok, verdict: VerdictTransient, timeout: true,
				class: "retryable by the SDK's retry classification: the request timed out"}, true
		}
		if tok == "TransactionCanceledException" {
			if f, ok := cancellationFact(t); ok {
				return f, true
			}
			continue
		}
		if r, ok := awsCodes[tok]; ok {
			return r.fact("AWS error code", tok), true
		}
	}
	return fact{}, false
}

// cancellationFact judges a TransactionCanceledException by the reasons
// DynamoDB lists, one per item ("[ConditionalCheckFailed, None]",
// "CancellationReason(Code=ConditionalCheckFailed, …)"): a failed condition
// is the data's state, and a redrive fails it again.
func cancellationFact(t string) (fact, bool) {
	const code = "TransactionCanceledException"
	for _, r := range cancellationReasons {
		if strings.Contains(t, r.reason) {
			return r.fact("AWS error code", code+" ["+r.reason+"]"), true
		}
	}
	return fact{}, false
}

// --- gRPC ---

var grpcRe = []*regexp.Regexp{
	regexp.MustCompile(`rpc error: code = (\w+)`),                     // Go
	regexp.MustCompile(`StatusCode\.([A-Z_]+)\b`),                     // Python
	regexp.MustCompile(`Status(?:Runtime)?Exception: ([A-Z_]{2,})\b`), // Java
	regexp.MustCompile(`StatusCode="?(\w+)"?`),                        // .NET
	regexp.MustCompile(`\b\d{1,2} ([A-Z_]{4,}): `),                    // Node
}

// grpcFact reads a gRPC status code as the runtimes print it.
func grpcFact(t string) (fact, bool) {
	for _, re := range grpcRe {
		if m := re.FindStringSubmatch(t); m != nil {
			name := strings.ToLower(strings.ReplaceAll(m[1], "_", ""))
			if r, ok := grpcCodes[name]; ok {
				return r.fact("gRPC status", r.name), true
			}
		}
	}
	return fact{}, false
}

// --- errno ---

var errnoNumber = regexp.MustCompile(`\[Errno (-?\d+)\]`)

// errnoFact reads an errno name (ECONNREFUSED, ETIMEDOUT) or Python's
// "[Errno 111]" (Linux numbers).
func errnoFact(t string) (fact, bool) {
	for _, tok := range tokens(t) {
		tok = strings.TrimPrefix(tok, "Errno::")
		if r, ok := errnoNames[tok]; ok {
			return r.fact("errno", tok), true
		}
	}
	if m := errnoNumber.FindStringSubmatch(t); m != nil {
		if name, ok := linuxErrno[m[1]]; ok {
			r := errnoNames[name]
			return r.fact("errno", name), true
		}
	}
	return fact{}, false
}

// --- runtimes ---

// runtimeMessageFact reads the messages a runtime's own error types write
// when the type name is not printed: Go's encoding/json, Python's json,
// Node's JSON.parse and fetch, Go's runtime panics.
func runtimeMessageFact(t string) (fact, bool) {
	return messageFact(t, "exception type", runtimeMessages)
}

// leadingTypeFact reads the exception type that leads the headline
// ("json.decoder.JSONDecodeError: …", "System.NullReferenceException: …").
func leadingTypeFact(t string) (fact, bool) {
	name, _, ok := strings.Cut(strings.TrimSpace(t), ":")
	if !ok || strings.ContainsAny(name, " \t") {
		// "JSON::ParserError: …" and "Errno::X" cut on their first colon.
		name = strings.TrimSpace(t)
		if i := strings.IndexAny(name, " \t"); i > 0 {
			name = strings.TrimSuffix(name[:i], ":")
		}
	}
	if strings.HasPrefix(t, name+"::") || strings.Contains(name, "::") {
		full, _, _ := strings.Cut(strings.TrimSpace(t), " ")
		name = strings.TrimSuffix(full, ":")
	}
	return typeFact(name)
}

// anyTypeFact reads a known exception type anywhere in the text, last.
func anyTypeFact(t string) (fact, bool) {
	for _, tok := range tokens(t) {
		if f, ok := typeFact(tok); ok {
			return f, true
		}
	}
	return fact{}, false
}

// typeFact judges an exception type by its full name ("JSON::ParserError",
// "Timeout::Error") or its last component ("com.fasterxml.jackson.core.
// JsonParseException" → JsonParseException, "*json.SyntaxError").
func typeFact(name string) (fact, bool) {
	name = strings.TrimLeft(name, "*&")
	if r, ok := exceptionTypes[name]; ok {
		return r.fact("exception type", name), true
	}
	last := name
	if i := strings.LastIndexAny(last, ".$"); i >= 0 {
		last = last[i+1:]
	}
	if i := strings.LastIndex(last, "::"); i >= 0 {
		last = last[i+2:]
	}
	if last == name || last == "" {
		return fact{}, false
	}
	if r, ok := exceptionTypes[last]; ok {
		return r.fact("exception type", name), true
	}
	return fact{}, false
}

// --- HTTP ---

var httpRe = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\b(?:https?(?:/\d(?:\.\d)?)?|status(?:[ _-]?code)?|(?:error[ _-]?)?code|response(?:[ _-]?code)?|returned|responded(?: with)?|got)\b[^0-9A-Za-z\n]{0,4}([1-5]\d\d)\b`),
	regexp.MustCompile(`\b\w*(?:HTTP|Http)\w*(?:Error|Exception)\b:? ?\(?([1-5]\d\d)\b`), // HTTPError: 503, HttpException(422)
	regexp.MustCompile(`(?i)\b(?:http )?error:? ([45]\d\d)\b`),                           // HTTP Error 503, error 404
	regexp.MustCompile(`\b([1-5]\d\d) (?:Client|Server) Error\b`),
	regexp.MustCompile(`does not indicate success: ([1-5]\d\d)\b`), // .NET HttpRequestException
	regexp.MustCompile(`\b([45]\d\d) (?:Bad Request|Unauthorized|Forbidden|Not Found|Request Timeout|Conflict|Gone|Precondition Failed|Payload Too Large|Unsupported Media Type|Unprocessable (?:Entity|Content)|Too Many Requests|Internal Server Error|Not Implemented|Bad Gateway|Service Unavailable|Gateway Timeout)\b`),
}

// httpFact reads an HTTP status in a status's position and judges it by
// RFC 9110: the status, else its class (4xx the request, 5xx the server).
func httpFact(t string) (fact, bool) {
	for _, re := range httpRe {
		for _, loc := range re.FindAllStringSubmatchIndex(t, 4) {
			code := t[loc[2]:loc[3]]
			n, _ := strconv.Atoi(code)
			if n < 400 || countsSomething(t[loc[3]:]) {
				continue
			}
			m := []string{"", code}
			r, ok := httpStatuses[n]
			if !ok {
				r = httpClasses[n/100]
			}
			return r.fact("HTTP status", m[1]), true
		}
	}
	return fact{}, false
}

// countsSomething tells a number followed by what it counts ("returned
// 500 rows", "status 404 times"): a count, not a status.
func countsSomething(after string) bool {
	w := strings.Fields(strings.TrimLeft(after, " "))
	if len(w) == 0 || !strings.HasPrefix(after, " ") {
		return false
	}
	return countNouns[strings.ToLower(strings.Trim(w[0], ".,;:)"))]
}

var countNouns = map[string]bool{"rows": true, "row": true, "items": true, "records": true, "results": true, "bytes": true,
	"ms": true, "s": true, "sec": true, "seconds": true, "messages": true, "entries": true, "lines": true, "times": true,
	"of": true, "errors": true, "events": true, "documents": true, "keys": true, "objects": true, "elements": true}

// tokens splits a text into name-like tokens: letters, digits and the
// joiners of qualified names (".", "_", "::", "$").
func tokens(t string) []string {
	out := strings.FieldsFunc(t, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == ':' || r == '$' || r == '*')
	})
	// A single colon separates ("cause:org.x.Y"); a double one joins
	// Ruby's names ("JSON::ParserError").
	split := out[:0:0]
	for _, tok := range out {
		for _, part := range strings.Split(strings.ReplaceAll(tok, "::", "\x00"), ":") {
			if part = strings.Trim(strings.ReplaceAll(part, "\x00", "::"), ".:*"); part != "" {
				split = append(split, part)
			}
		}
	}
	return split
}

// tokenFact reads the first token of t that names a row of table.
func tokenFact(t, taxonomy string, table map[string]row) (fact, bool) {
	for _, tok := range tokens(t) {
		if r, ok := table[tok]; ok {
			return r.fact(taxonomy, tok), true
		}
	}
	return fact{}, false
}

// capturedFact reads the first match of res, in order, whose capture
// names a row of table.
func capturedFact(t, taxonomy string, res []*regexp.Regexp, table map[string]row) (fact, bool) {
	for _, re := range res {
		if m := re.FindStringSubmatch(t); m != nil {
			if r, ok := table[m[1]]; ok {
				return r.fact(taxonomy, m[1]), true
			}
		}
	}
	return fact{}, false
}

// namedMessage is a fixed message that a runtime or a server writes for an
// error it does not name in the text: the name, the message, the row.
type namedMessage struct {
	name string
	re   *regexp.Regexp
	row
}

// messageFact reads the first of msgs whose message t holds.
func messageFact(t, taxonomy string, msgs []namedMessage) (fact, bool) {
	for _, m := range msgs {
		if m.re.MatchString(t) {
			return m.fact(taxonomy, m.name), true
		}
	}
	return fact{}, false
}

// lastName is the last component of a qualified name:
// "botocore.errorfactory.ConditionalCheckFailedException" →
// "ConditionalCheckFailedException".
func lastName(tok string) string {
	if i := strings.LastIndexAny(tok, ".$:"); i >= 0 {
		return tok[i+1:]
	}
	return tok
}
