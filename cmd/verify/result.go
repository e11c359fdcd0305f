package verify

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/plural"
	verifystep "github.com/mfdlq/mfdlq/verify"

	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/untrusted"
)

// record writes verify.json and appends the verify event.
func (o *VerifyOptions) record(dlq *sqsapi.Queue, rec verifystep.Redriven, res verifystep.Result) error {
	d := o.deps
	ws, err := d.Workspace(dlq.Name)
	if err != nil {
		return err
	}
	in := verifystep.Inputs{Wait: o.Wait.String(), Interval: o.Interval.String(), ExpectLeft: rec.Left}
	return d.AppendStep(ws, dlq, "verify", incident.VerifyFile, res, in, res.Figures(rec), string(res.Verdict))
}

// tell sends the team verify's verdict (--notify), once, and records it.
func (o *VerifyOptions) tell(ctx context.Context, dlq *sqsapi.Queue, res verifystep.Result) {
	moved := fmt.Sprintf("%s redriven to %s, %d came back, %d in the DLQ", plural.Of(res.Moved, "message"), cmp.Or(res.DestQueue, "-"), len(res.Returned), res.DLQVisible)
	dir, _ := o.deps.IncidentDir(dlq.Name)
	report := dir + "/" + incident.VerifyFile
	o.deps.NotifyQueueStep(ctx, &o.notify, "verify", dlq, res.Verdict.Word(), moved, report)
}

// render prints the verdict, the evidence and, on failure, the messages
// that came back.
func (o *VerifyOptions) render(res verifystep.Result) error {
	d := o.deps
	if d.JSONOutput() {
		return d.PrintJSON(res)
	}
	// The verdict first, then why, then the messages that came back.
	note := ""
	if res.Pass && len(res.Unchecked) > 0 {
		note = fmt.Sprintf(", %s not checked (below)", plural.Of(len(res.Unchecked), "thing"))
	}
	fmt.Fprintf(d.IO.ErrOut, "verdict: %s (%s over %.0fs%s)\n", res.Verdict.Word(), plural.Of(res.Looks, "look"), res.Waited, note)
	if len(res.Destinations) > 1 {
		for _, dr := range res.Destinations {
			fmt.Fprintf(d.IO.ErrOut, "  %s: %s (%d moved, %d returned, %s)\n", untrusted.Terminal(dr.Queue), dr.Verdict.Word(), dr.Moved, dr.Returned, trafficWord(dr.Live))
		}
	}
	for _, r := range res.Reasons {
		fmt.Fprintf(d.IO.ErrOut, "  · %s\n", untrusted.Terminal(r))
	}
	if res.ToProve != "" {
		fmt.Fprintf(d.IO.ErrOut, "to prove it: %s\n", untrusted.Terminal(res.ToProve))
	}
	if len(res.Returned) > 0 {
		t := cmdutil.TableData{Headers: []string{"MESSAGE ID", "WAS DLQ MESSAGE", "MATCHED BY", "RECEIVES", "FIRST RECEIVED", "SEEN"}}
		for _, r := range res.Returned {
			count, first := "-", "-"
			if r.ReceiveCount != nil {
				count = strconv.Itoa(*r.ReceiveCount)
			}
			stamp := time.RFC3339
			if d.IO.OutTTY {
				stamp = "2006-01-02 15:04:05 UTC" // a person's time; piped rows keep RFC 3339
			}
			if r.FirstReceive != nil {
				first = r.FirstReceive.UTC().Format(stamp)
			}
			t.Rows = append(t.Rows, []string{r.MessageID, r.DLQMessageID, r.MatchedBy, count, first, r.SeenAt.UTC().Format(stamp)})
		}
		return d.PrintTable(t)
	}
	return nil
}

// trafficWord says how a destination was judged: live (its own traffic,
// against its baseline) or quiet (it had to drain).
func trafficWord(live bool) string {
	if live {
		return "live: judged against its own traffic"
	}
	return "quiet: must drain"
}
