// Package health decides when a dependency is healthy enough to redrive
// into: every named CloudWatch alarm (metric or composite) in OK, without a
// break, for a while (--for). It reads the alarms and judges; it moves
// nothing. The redrive asks it before the move (Wait) and listens to it
// during the move (Watch), and the incident directory keeps what it saw
// (the waits file), so a wait killed by SIGKILL goes on where it was.
//
// # Words
//
//   - Alarm: one named alarm as one DescribeAlarms read saw it: its type,
//     its state (OK, ALARM, INSUFFICIENT_DATA) and since when.
//   - Streak: how long an alarm has been OK without a break. It starts at
//     the alarm's own transition time, never before this process last saw
//     the alarm out of OK (the floor), so a flip between two reads cannot
//     make a streak longer than it was, and a streak this process saw
//     begin is timed by its own clock alone.
//   - Gate: the alarms, --for, --give-up, the clock and the client.
//   - Data proof: an OK counts only with data behind it. A metric alarm
//     whose OK may come from missing data (TreatMissingData notBreaching or
//     ignore, an AWS/DynamoDB metric) counts when its metric has a
//     datapoint in its last EvaluationPeriods+1 periods; a composite when
//     none of the alarms its rule names is INSUFFICIENT_DATA or OK
//     without data (data.go). Only a wait's reads ask for it.
//   - Wait: polls until every streak is --for long (nil), until --give-up
//     (*GiveUpError, exit 3), or until ctx ends.
//   - Watch: polls during a move and sends one Break the moment an alarm
//     is seen out of OK, or its streak restarted between two reads.
//   - Waits: the waits file, when-ok.jsonl in the incident directory; each
//     of its lines is a Milestone: a wait's start, an alarm's change, a
//     pause, an end. (The journal is the redrive's own,
//     redrive-journal.jsonl.)
//
// # Reading order
//
// api.go (the calls), alarms.go (one read), data.go (the data proof),
// rule.go (a composite's alarms), gate.go (the streaks), wait.go,
// watch.go, session.go (the redrive's use), waits.go, status.go (what a
// person reads).
//
// # Rate
//
// CloudWatch's DescribeAlarms has a per-account, per-region TPS quota
// shared with every dashboard and tool of the account. One read is one
// call for up to 100 names (the API's bound, and so the flag's); a wait
// reads every PollWait, a watch every PollWatch, and a throttled or failed
// read doubles the interval up to PollMax: well under 1 TPS at all times.
// A wait's read may add one DescribeAlarms for a composite's children and
// one GetMetricData for every alarm that needs a data proof, none while a
// datapoint already seen is still in its alarm's window.
package health
