package incident

// The file names of an incident directory, one place for all of them:
// every step writes its artifact under its name here, and the report and
// later steps read it back by the same name (docs/incident.md lists them).
const (
	// EventsFile is the append-only log of what every step did.
	EventsFile = "events.jsonl"
	// SamplesFile holds the messages inspect peeked at, in the SQS JSON
	// shape: the largest recent whole look (a smaller peek keeps it).
	SamplesFile = "samples.jsonl"
	// ClassificationFile is classify's verdict, groups and evidence: the
	// incident's one verdict, replaced only by a look with at least its
	// evidence (classify.Judge).
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
	// ExportFile is the latest export's manifest: where the file is, how
	// many messages it holds, its SHA-256, what was deleted.
	ExportFile = "export.json"
	// ChangesFile is what changed around the first failure: the trail's
	// related changes and deploys, the alarms, the consumer's metrics.
	ChangesFile = "changes.json"
	// WaitsFile is redrive --when-ok's waits: each wait on the
	// dependency's alarms, their changes, each pause of the move.
	WaitsFile = "when-ok.jsonl"
	// OriginalsFile holds, in the export format, the original of every
	// message redrive --transform sent a repaired copy of, each written
	// and fsynced before its copy was sent: the undo replays it.
	// An incident's first --transform writes it compressed
	// (OriginalsGzFile, a gzip member per group commit); one that already holds
	// the uncompressed file keeps appending to it.
	OriginalsFile   = "transform-originals.jsonl"
	OriginalsGzFile = "transform-originals.jsonl.gz"
	// ReportFile is the report's default name.
	ReportFile = "report.md"
)

// The steps, by the name their events carry (Event.Step): the runbook's
// seven, the fix between logs and redrive, and check.
const (
	StepContain  = "contain"
	StepInspect  = "inspect"
	StepClassify = "classify"
	StepLogs     = "logs"
	StepChanges  = "changes"
	StepExport   = "export"
	StepFix      = "fix"
	StepRedrive  = "redrive"
	StepVerify   = "verify"
	StepCheck    = "check"
	StepRecord   = "record"
)
