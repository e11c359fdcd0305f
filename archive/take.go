package archive

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"maps"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/sqsjson"
)

// take checks one fresh message and writes it when selected. The receipt
// handle is not written: it is useless once the export ends, and it
// grants the power to delete while it lasts.
func (st *Stats) take(out *sqsjson.Writer, h *handles, m *sqsjson.Message, o Options) error {
	st.Received++
	switch {
	case m.MD5OfBody == "":
		st.Unchecked++
	case md5Hex(m.Body) != m.MD5OfBody:
		return fmt.Errorf("message %s: %w: nothing written, nothing deleted", m.MessageId, ErrBodyMismatch)
	}
	if o.Max > 0 && st.Exported >= o.Max {
		st.Skipped++
		return nil
	}
	if o.Select != nil {
		ok, err := o.Select(m)
		if err != nil {
			st.filterError(m.MessageId, err)
			return nil
		}
		if !ok {
			st.Skipped++
			return nil
		}
	}
	rec := *m
	rec.ReceiptHandle = ""
	if o.Queue.ARN != "" {
		rec.Attributes = maps.Clone(m.Attributes)
		if rec.Attributes == nil {
			rec.Attributes = map[string]string{}
		}
		rec.Attributes[sqsjson.AttrExportedFrom] = o.Queue.ARN
	}
	if err := out.Write(&rec); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	h.markWritten(m.MessageId)
	st.Exported++
	return nil
}

func receive(ctx context.Context, c SQS, o Options) ([]types.Message, error) {
	out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
		QueueUrl:                    aws.String(o.Queue.URL),
		MaxNumberOfMessages:         10,
		VisibilityTimeout:           int32(o.Visibility / time.Second),
		WaitTimeSeconds:             o.Wait,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll},
		MessageAttributeNames:       []string{"All"},
	})
	if err != nil {
		return nil, err
	}
	return out.Messages, nil
}

func md5Hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}
