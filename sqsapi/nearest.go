package sqsapi

import (
	"context"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// nearestPrefixLen is how much of a mistyped name the listing for a
// suggestion keeps as its prefix: ListQueues matches prefixes only, and a
// typo sits after the first letters far more often than in them (a missing
// "s", a swapped pair), so "order-dlq" lists the queues starting "or". One
// page of 1,000 (SQS's maximum) bounds what a suggestion costs.
const nearestPrefixLen = 2

// Nearest is the queue of c's account and region whose name is closest to
// name, for "did you mean …?" after a queue was not found: by edit
// distance (a letter added, dropped, changed, or two swapped), case
// ignored, within a third of the name's length and at most 3. It lists the
// queues as ls does (ListQueues by prefix), one page; any failure is no
// suggestion.
func Nearest(ctx context.Context, c ListAPI, name string) (string, bool) {
	if name == "" {
		return "", false
	}
	prefix := name
	if len(prefix) > nearestPrefixLen {
		prefix = prefix[:nearestPrefixLen]
	}
	page, err := c.ListQueues(ctx, &sqs.ListQueuesInput{QueueNamePrefix: aws.String(prefix), MaxResults: aws.Int32(1000)})
	if err != nil {
		return "", false
	}
	names := make([]string, 0, len(page.QueueUrls))
	for _, u := range page.QueueUrls {
		names = append(names, NameOf(u))
	}
	return nearestName(name, names)
}

// nearestName picks the closest of names to name (see Nearest); ties go
// to the first in sorted order, so the answer does not depend on the
// listing's order.
func nearestName(name string, names []string) (string, bool) {
	sort.Strings(names)
	limit := min(3, max(1, utf8.RuneCountInString(name)/3))
	best, bestD := "", limit+1
	for _, n := range names {
		if n == name {
			continue
		}
		if d := editDistance(strings.ToLower(name), strings.ToLower(n)); d < bestD {
			best, bestD = n, d
		}
	}
	return best, best != ""
}

// editDistance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and transpositions of neighbours
// each cost one, counted in runes.
func editDistance(a, b string) int {
	s, t := []rune(a), []rune(b)
	prev2 := make([]int, len(t)+1)
	prev := make([]int, len(t)+1)
	cur := make([]int, len(t)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(s); i++ {
		cur[0] = i
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(t)]
}
