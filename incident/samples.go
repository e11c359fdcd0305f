package incident

import "github.com/mfdlq/mfdlq/sqsjson"

// LiveSample is an event's "source" when the step peeked at the DLQ just
// now, rather than reading a file (--from, samples.jsonl).
const LiveSample = "live sample"

// KeptSample is the size of the incident's sample when a fresh peek of
// peeked messages must not replace it, else 0. Samples accumulate as whole
// looks: the largest recent one is kept, so a small inspect (--max 5)
// cannot shrink what classify judges. A sample is no longer recent once a
// step after the one that took it moved or deleted messages (redrive,
// export): the DLQ it describes is gone, and any new peek replaces it.
// Steps are ordered by events.jsonl, not by clocks.
func (w *Workspace) KeptSample(peeked int) int {
	if !w.Has(SamplesFile) {
		return 0
	}
	events, err := w.Events()
	if err != nil {
		return 0
	}
	taken := -1
	for i, ev := range events {
		if tookSample(ev) {
			taken = i
		}
	}
	for _, ev := range events[taken+1:] {
		if ev.Step == StepRedrive || ev.Step == StepExport {
			return 0
		}
	}
	f, err := w.Open(SamplesFile)
	if err != nil {
		return 0
	}
	defer f.Close()
	msgs, err := sqsjson.ReadAll(f)
	if err != nil || len(msgs) <= peeked {
		return 0
	}
	return len(msgs)
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
