// Package alarmtriage is mfdlq as a Lambda function: an EventBridge
// "CloudWatch Alarm State Change" event of a DLQ alarm moving into ALARM
// runs triage on that DLQ, keeps the incident in S3 (incidents3) and
// tells the team once, in names and figures only.
//
// # Alarm
//
// The event's alarm: its ARN, its state and the previous one, the time of
// the state, and the queue its metrics watch (the QueueName dimension of
// an AWS/SQS metric, a metric-math alarm's metrics[].metricStat
// included). Only a move into ALARM starts anything; the alarm's other
// changes are answered "skipped".
//
// # Episode
//
// One move into ALARM (the alarm's ARN and its state's timestamp). It is
// claimed in S3 with a conditional write before anything runs, so an
// event delivered twice, or two functions on it, triage once. A flapping
// alarm makes an episode per move; an episode that finds the DLQ's open
// incident triaged less than Cooldown ago is added to it as an alarm
// event and starts no triage: the channel is told once.
//
// # Handler
//
// Handle takes one event and returns the Response or an error of one
// line: a bad event (another shape, no queue, a composite alarm) and a
// failed triage (no such queue, no permission) end as the invocation's
// error, never a panic and never a retry (the template sets the
// asynchronous retries to 0). The Triage it runs is a function the
// caller supplies (cmd runs `mfdlq triage` through its own tree), so this
// package owns the event, the episode and the incident's place, not the
// step.
//
// Reading order: event.go, handler.go.
package alarmtriage
