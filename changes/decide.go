package changes

import "time"

// Decide names the nearest change and the verdict, and writes the evidence
// line classify and the report quote.
func (r *Result) Decide() {
	r.Nearest = Nearest(r.Events)
	trailRead := true
	for _, u := range r.Unread {
		if u.Source == SourceTrail {
			trailRead = false
		}
	}
	var dep *Alarm
	for i := range r.Alarms {
		if !r.Alarms[i].Own {
			dep = &r.Alarms[i]
			break
		}
	}
	switch {
	case r.Nearest != nil && r.Nearest.Offset <= 0:
		r.Verdict, r.Evidence = VerdictChange, Sentence(*r.Nearest)
	case dep != nil:
		r.Verdict, r.Evidence = VerdictAlarm, AlarmSentence(*dep)
	case !trailRead:
		r.Verdict, r.Evidence = VerdictUnknown, ""
	default:
		r.Verdict = VerdictQuiet
		r.Evidence = "no change to the queue's consumers, roles, queues or KMS key and no deploy in the account between " +
			r.Range.From.Format(time.RFC3339) + " and the first failure"
	}
}
