package incident

// LiveSample is an event's "source" when the step peeked at the DLQ just
// now, rather than reading a file (--from, samples.jsonl).
const LiveSample = "live sample"

// SampleRecent tells whether the incident's sample still describes the
// DLQ: a step after the one that took it moved or deleted messages
// (redrive, export) and it no longer does. Samples accumulate as whole
// looks: a recent sample larger than a fresh peek is kept, so a small
// inspect (--max 5) cannot shrink what classify judges; a sample no longer
// recent is replaced by any new peek. Steps are ordered by events.jsonl,
// not by clocks.
func (w *Workspace) SampleRecent() bool {
	if !w.Has(SamplesFile) {
		return false
	}
	events, err := w.Events()
	if err != nil {
		return false
	}
	taken := -1
	for i, ev := range events {
		if tookSample(ev) {
			taken = i
		}
	}
	for _, ev := range events[taken+1:] {
		if ev.Step == StepRedrive || ev.Step == StepExport {
			return false
		}
	}
	return true
}

// tookSample tells whether ev's step wrote samples.jsonl: an inspect that
// saved its peek, or a classify that peeked for want of one. (A logs step
// that peeked says not: a sample it took after a redrive counts as stale,
// the safe side — a new peek replaces it.)
func tookSample(ev Event) bool {
	if ev.Artifact == SamplesFile {
		return true
	}
	if ev.Step != StepClassify {
		return false
	}
	var in struct {
		Source string `json:"source"`
	}
	_ = ev.DecodeInputs(&in)
	return in.Source == LiveSample
}
