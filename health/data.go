package health

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"

	"github.com/mfdlq/mfdlq/awserr"
	"github.com/mfdlq/mfdlq/untrusted"
)

// TreatMissingData's values (PutMetricAlarm). With notBreaching a metric
// that stops reporting reads OK; with ignore the alarm keeps the state it
// had. Step 1 of the runbook pauses the consumer, so an alarm fed by its
// calls to the dependency gets no data at all: OK then says nothing about
// the dependency.
const (
	MissingDefault      = "missing"
	MissingNotBreaching = "notBreaching"
	MissingIgnore       = "ignore"
	MissingBreaching    = "breaching"
)

// namespaceDynamoDB's alarms ignore missing data whatever TreatMissingData
// says (PutMetricAlarm's reference).
const namespaceDynamoDB = "AWS/DynamoDB"

// Bounds of one proof: GetMetricData takes at most 500 queries a call; a
// composite's children are followed three levels down, at most MaxAlarms
// names a level (a rule names at most 100 alarms).
const (
	maxMetricQueries = 500
	maxRuleDepth     = 3
)

// missingMeansOK says why an OK state of m may come from missing data
// rather than from good data, or "" when CloudWatch would have left OK
// without data (missing: INSUFFICIENT_DATA; breaching: ALARM).
func missingMeansOK(m *types.MetricAlarm) string {
	for _, ns := range namespaces(m) {
		if ns == namespaceDynamoDB {
			return "an AWS/DynamoDB alarm ignores missing data"
		}
	}
	switch aws.ToString(m.TreatMissingData) {
	case MissingNotBreaching:
		return "TreatMissingData notBreaching counts a missing datapoint as good"
	case MissingIgnore:
		return "TreatMissingData ignore keeps the state through missing data"
	}
	return ""
}

func namespaces(m *types.MetricAlarm) []string {
	out := []string{aws.ToString(m.Namespace)}
	for _, q := range m.Metrics {
		if q.MetricStat != nil && q.MetricStat.Metric != nil {
			out = append(out, aws.ToString(q.MetricStat.Metric.Namespace))
		}
	}
	return out
}

// dataWindow is how recent a datapoint must be for an OK to count: the
// alarm's evaluation periods plus one (CloudWatch's own ingestion delay),
// and how many periods that is.
func dataWindow(m *types.MetricAlarm) (time.Duration, int) {
	period := aws.ToInt32(m.Period)
	for _, q := range m.Metrics {
		if q.MetricStat != nil {
			period = max(period, aws.ToInt32(q.MetricStat.Period))
		}
	}
	if period <= 0 {
		period = 60
	}
	n := int(max(aws.ToInt32(m.EvaluationPeriods), 1)) + 1
	return time.Duration(n) * time.Duration(period) * time.Second, n
}

// metricQueries are the metrics m evaluates, as GetMetricData queries
// (ids set by the caller): the alarm's own metric, or each MetricStat of a
// metric-math alarm (its expressions are left out: a datapoint of any
// input is data).
func metricQueries(m *types.MetricAlarm) []types.MetricDataQuery {
	if m.MetricName != nil {
		stat := string(m.Statistic)
		if m.ExtendedStatistic != nil {
			stat = *m.ExtendedStatistic
		}
		return []types.MetricDataQuery{{ReturnData: aws.Bool(true), MetricStat: &types.MetricStat{
			Metric: &types.Metric{Namespace: m.Namespace, MetricName: m.MetricName, Dimensions: m.Dimensions},
			Period: m.Period, Stat: aws.String(cmp.Or(stat, "SampleCount")), Unit: m.Unit}}}
	}
	var out []types.MetricDataQuery
	for _, q := range m.Metrics {
		if q.MetricStat != nil && q.MetricStat.Metric != nil {
			ms := *q.MetricStat
			out = append(out, types.MetricDataQuery{ReturnData: aws.Bool(true), MetricStat: &ms})
		}
	}
	return out
}

// metricName names m's metric for a person, sanitised.
func metricName(m *types.MetricAlarm) string {
	if m.MetricName != nil {
		return untrusted.Shorten(untrusted.Terminal(aws.ToString(m.Namespace)+" "+aws.ToString(m.MetricName)), 120)
	}
	return "its metric-math inputs"
}

// reasonData is what the data proof reads of StateReasonData: when
// CloudWatch last evaluated the alarm and the datapoints it saw.
type reasonData struct {
	QueryDate        string     `json:"queryDate"`
	RecentDatapoints []*float64 `json:"recentDatapoints"`
}

// recentData is the time of the evaluation StateReasonData records when it
// saw at least one datapoint; zero otherwise (no data then, or no reason
// data: moto, an alarm set by hand).
func recentData(m *types.MetricAlarm) time.Time {
	var rd reasonData
	if json.Unmarshal([]byte(aws.ToString(m.StateReasonData)), &rd) != nil {
		return time.Time{}
	}
	seen := false
	for _, v := range rd.RecentDatapoints {
		seen = seen || v != nil
	}
	if !seen {
		return time.Time{}
	}
	for _, layout := range []string{"2006-01-02T15:04:05.000-0700", time.RFC3339Nano} {
		if t, err := time.Parse(layout, rd.QueryDate); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

// noData is the data proof of a wait's read: for each OK alarm whose OK
// may come from missing data, why it does not count ("" entries are left
// out). A metric alarm counts when its metric has a datapoint within its
// dataWindow — StateReasonData's recent datapoints when CloudWatch
// evaluated it that recently, else GetMetricData; a composite counts when
// none of the alarms its rule names (followed down) is INSUFFICIENT_DATA
// or OK without data. A metric that cannot be read proves nothing.
//
// floors are, for an alarm proven for the first time by its metric's
// datapoints, the earliest of them in the range read (--for back): OK
// with data began no earlier, so the streak does not either (a
// composite's is its latest child's).
func (g *Gate) noData(ctx context.Context, alarms []Alarm, now time.Time) (out map[string]string, floors map[string]time.Time) {
	known := map[string]Alarm{}
	for _, a := range alarms {
		known[a.Name] = a
	}
	children, unread := g.children(ctx, alarms, known)
	why, first := g.proveMetrics(ctx, toProve(alarms, children, known), now)
	out, floors = map[string]string{}, map[string]time.Time{}
	for _, a := range alarms {
		switch {
		case a.State != StateOK:
		case a.Type == TypeMetric && why[a.Name] != "":
			out[a.Name] = why[a.Name]
		case a.Type == TypeMetric:
			if t, ok := first[a.Name]; ok {
				floors[a.Name] = t
			}
		case a.Type == TypeComposite && unread[a.Name] != "":
			out[a.Name] = "the alarms its rule names could not be read (" + unread[a.Name] + "): its OK is not proven"
		case a.Type == TypeComposite:
			notProven, floor := compositeNoData(children[a.Name], known, why, first)
			if notProven != "" {
				out[a.Name] = notProven
			}
			if !floor.IsZero() {
				floors[a.Name] = floor
			}
		}
	}
	return out, floors
}

// toProve is the metric alarms whose OK needs a datapoint: named ones in
// OK, and those under an OK composite, once each.
func toProve(alarms []Alarm, children map[string][]string, known map[string]Alarm) []Alarm {
	var prove []Alarm
	queued := map[string]bool{}
	queue := func(a Alarm) {
		if a.metric != nil && a.State == StateOK && missingMeansOK(a.metric) != "" && !queued[a.Name] {
			queued[a.Name] = true
			prove = append(prove, a)
		}
	}
	for _, a := range alarms {
		queue(a)
		if a.Type == TypeComposite && a.State == StateOK {
			for _, c := range children[a.Name] {
				queue(known[c])
			}
		}
	}
	return prove
}

// compositeNoData is why an OK composite whose rule names children does
// not count ("": it does), and its floor: the latest of its children's
// first datapoints read before the first child that does not count.
func compositeNoData(children []string, known map[string]Alarm, why map[string]string, first map[string]time.Time) (string, time.Time) {
	var floor time.Time
	for _, c := range children {
		if t := first[c]; t.After(floor) {
			floor = t
		}
		ca, ok := known[c]
		switch {
		case !ok:
		case ca.State == StateInsufficientData:
			return fmt.Sprintf("its rule's alarm %s is INSUFFICIENT_DATA, which an ALARM() of the rule reads as false", Quote(c)), floor
		case why[c] != "":
			return fmt.Sprintf("its rule's alarm %s is OK without data: %s", Quote(c), why[c]), floor
		}
	}
	return "", floor
}

// proveMetrics says, per metric alarm of prove, why its OK does not count
// (no entry: it has data), and for one proven by its datapoints for the
// first time in this gate, the earliest datapoint read (first). A
// datapoint seen keeps an alarm proven until it leaves the window, so a
// wait re-reads a metric only when that may have changed. The range read
// reaches --for back (at least the window), so an alarm whose metric has
// had data all along can count its whole streak at once.
func (g *Gate) proveMetrics(ctx context.Context, prove []Alarm, now time.Time) (why map[string]string, first map[string]time.Time) {
	why, first = map[string]string{}, map[string]time.Time{}
	r := g.metricRead(prove, now, why)
	if len(r.queries) == 0 {
		return why, first
	}
	earliest, ok := g.readMetrics(ctx, r, now, why)
	if !ok {
		return why, first
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, a := range r.owner {
		switch {
		case why[a.Name] != "":
			g.proven[a.Name] = false
		case !g.proven[a.Name]:
			g.proven[a.Name] = true
			first[a.Name] = earliest[a.Name]
		}
	}
	return why, first
}

// metricRead is one GetMetricData read of the metrics of the alarms that
// still need a datapoint: its queries, whose alarm each query's id is,
// and the start of the range (the widest of their windows and --for).
type metricRead struct {
	queries []types.MetricDataQuery
	owner   map[string]Alarm
	start   time.Time
}

// metricRead builds the read for prove, leaving out the alarms a
// datapoint already proves until after now (seen earlier, or the one
// behind CloudWatch's last transition). why gets an entry for each alarm
// left to prove: no data until a datapoint says otherwise, or a metric
// mfdlq does not read.
func (g *Gate) metricRead(prove []Alarm, now time.Time, why map[string]string) metricRead {
	r := metricRead{owner: map[string]Alarm{}}
	for _, a := range prove {
		window, _ := dataWindow(a.metric)
		g.mu.Lock()
		until := g.dataUntil[a.Name]
		g.mu.Unlock()
		if until.After(now) {
			continue
		}
		if t := recentData(a.metric); !t.IsZero() && t.Add(window).After(now) {
			// CloudWatch changed the state with data behind it: the
			// streak since its transition is data-backed.
			g.setDataUntil(a.Name, t.Add(window))
			continue
		}
		qs := metricQueries(a.metric)
		if len(qs) == 0 || len(r.queries)+len(qs) > maxMetricQueries {
			why[a.Name] = noDataText(a, "its metric is an expression mfdlq does not read")
			continue
		}
		for _, q := range qs {
			q.Id = aws.String(fmt.Sprintf("q%d", len(r.queries)))
			r.owner[*q.Id] = a
			r.queries = append(r.queries, q)
		}
		if s := now.Add(-max(window, g.opts.For)); r.start.IsZero() || s.Before(r.start) {
			r.start = s
		}
		why[a.Name] = noDataText(a, "") // until a datapoint says otherwise
	}
	return r
}

// readMetrics runs r, up to maxPages: a datapoint within an alarm's window
// deletes its why and keeps it proven until the datapoint leaves the
// window. earliest is each alarm's earliest datapoint read; false: the
// read failed, and why says so for every alarm of r.
func (g *Gate) readMetrics(ctx context.Context, r metricRead, now time.Time, why map[string]string) (earliest map[string]time.Time, ok bool) {
	earliest = map[string]time.Time{}
	in := &cloudwatch.GetMetricDataInput{MetricDataQueries: r.queries, StartTime: aws.Time(r.start.Truncate(time.Minute)), EndTime: aws.Time(now.Add(time.Minute).Truncate(time.Minute))}
	for page := 0; page < maxPages; page++ {
		out, err := g.cw.GetMetricData(ctx, in)
		if err != nil {
			for _, a := range r.owner {
				why[a.Name] = noDataText(a, fmt.Sprintf("its metric could not be read (GetMetricData: %s)", awserr.Code(err)))
			}
			return nil, false
		}
		for _, res := range out.MetricDataResults {
			a, ok := r.owner[aws.ToString(res.Id)]
			if !ok {
				continue
			}
			window, _ := dataWindow(a.metric)
			for _, ts := range res.Timestamps {
				if e, ok := earliest[a.Name]; !ok || ts.Before(e) {
					earliest[a.Name] = ts
				}
				if ts.Add(window).After(now) {
					delete(why, a.Name)
					g.setDataUntil(a.Name, ts.Add(window))
				}
			}
		}
		if aws.ToString(out.NextToken) == "" {
			break
		}
		in.NextToken = out.NextToken
	}
	return earliest, true
}

func (g *Gate) setDataUntil(name string, t time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if t.After(g.dataUntil[name]) {
		g.dataUntil[name] = t
	}
}

// noDataText is why a's OK does not count, and what would make it count.
func noDataText(a Alarm, cause string) string {
	window, n := dataWindow(a.metric)
	if cause == "" {
		cause = fmt.Sprintf("no datapoint of %s in its last %d periods (%s)", metricName(a.metric), n, window)
	}
	if r := strings.ToLower(a.Reason); strings.Contains(r, "no datapoints") || strings.Contains(r, "missing datapoint") {
		cause += fmt.Sprintf(" (CloudWatch's reason: %q)", untrusted.Shorten(untrusted.Terminal(a.Reason), 120))
	}
	return fmt.Sprintf("%s, and %s: OK may mean only that nothing reports (a paused consumer); it counts once the metric has a datapoint in its last %d periods", missingMeansOK(a.metric), cause, n)
}
