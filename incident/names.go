package incident

// The file names of an incident directory, one place for all of them:
// every step writes its artifact under its name here, and the report and
// later steps read it back by the same name (docs/incident.md lists them).
const (
	// EventsFile is the append-only log of what every step did.
	EventsFile = "events.jsonl"
	// SamplesFile holds the messages inspect peeked at, in the SQS JSON shape.
	SamplesFile = "samples.jsonl"
	// ClassificationFile is classify's verdict, groups and evidence.
	ClassificationFile = "classification.json"
	// LogsFile is what logs found for each message in CloudWatch Logs.
	LogsFile = "logs.json"
	// ContainFile is contain's judgement of whether the problem is alive.
	ContainFile = "contain.json"
	// JournalFile is the redrive journal: one line per message sent or deleted.
	JournalFile = "redrive-journal.jsonl"
	// VerifyFile is verify's verdict after a redrive.
	VerifyFile = "verify.json"
	// CheckFile is check's safeguard findings.
	CheckFile = "check.json"
	// ReportFile is the report's default name.
	ReportFile = "report.md"
)
