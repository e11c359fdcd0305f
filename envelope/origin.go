package envelope

import (
	"encoding/json"
	"strconv"
)

// Origin is where a message came from, as its envelope says: what a redrive
// to the original SNS topic, EventBridge bus or Lambda function needs. Only
// the parts the envelope has are set. Origin is read on demand (Detect does
// not pay for it): it decodes the envelope again.
type Origin struct {
	SNS         *SNSOrigin    `json:"sns,omitempty"`
	EventBridge *EventOrigin  `json:"eventbridge,omitempty"`
	Lambda      *LambdaOrigin `json:"lambda,omitempty"`
	Rule        *RuleOrigin   `json:"rule,omitempty"`
	S3          *S3Origin     `json:"s3,omitempty"`
}

// SNSOrigin is an SNS notification's publish-side fields.
type SNSOrigin struct {
	TopicArn  string `json:"topic_arn"`
	MessageID string `json:"message_id"`
	Subject   string `json:"subject,omitempty"`
	// Message is the Message string exactly as it was published.
	Message           string                  `json:"message"`
	Timestamp         string                  `json:"timestamp"`
	MessageAttributes map[string]SNSAttribute `json:"message_attributes,omitempty"`
}

// SNSAttribute is a message attribute as an SNS notification carries it.
type SNSAttribute struct {
	Type  string `json:"type"`  // String, String.Array, Number or Binary
	Value string `json:"value"` // Binary: base64
}

// EventOrigin is an EventBridge event's fields: what PutEvents needs again.
type EventOrigin struct {
	ID         string   `json:"id"`
	Source     string   `json:"source"`
	DetailType string   `json:"detail_type"`
	Account    string   `json:"account"`
	Region     string   `json:"region"`
	Time       string   `json:"time"`
	Resources  []string `json:"resources"`
	// Detail is the detail object's exact bytes.
	Detail json.RawMessage `json:"detail"`
}

// LambdaOrigin is the failed invocation, from a destination record or the
// attributes of a function's DLQ.
type LambdaOrigin struct {
	RequestID              string `json:"request_id"`
	FunctionArn            string `json:"function_arn,omitempty"`
	Condition              string `json:"condition,omitempty"` // RetriesExhausted, EventAgeExceeded
	ApproximateInvokeCount int    `json:"approximate_invoke_count,omitempty"`
	FunctionError          string `json:"function_error,omitempty"` // Handled, Unhandled
	ExecutedVersion        string `json:"executed_version,omitempty"`
	StatusCode             int    `json:"status_code,omitempty"` // responseContext, or the DLQ's ErrorCode
}

// RuleOrigin is the EventBridge target DLQ's attributes.
type RuleOrigin struct {
	RuleArn                 string `json:"rule_arn"`
	TargetArn               string `json:"target_arn"`
	ErrorCode               string `json:"error_code"`
	ErrorMessage            string `json:"error_message,omitempty"`
	ExhaustedRetryCondition string `json:"exhausted_retry_condition,omitempty"`
	RetryAttempts           int    `json:"retry_attempts,omitempty"`
}

// S3Origin is an S3 event's first record (or the test event's bucket).
type S3Origin struct {
	EventName string `json:"event_name"`
	Bucket    string `json:"bucket"`
	Key       string `json:"key,omitempty"` // URL-encoded, as S3 sends it
	Records   int    `json:"records"`
}

// Origin decodes the envelope's origin fields.
func (e Envelope) Origin() Origin {
	var o Origin
	switch e.Kind {
	case KindLambdaAsync:
		o.Lambda = &LambdaOrigin{RequestID: e.RequestID}
		if v, ok := stringAttr(e.attrs, "ErrorCode"); ok {
			o.Lambda.StatusCode, _ = strconv.Atoi(v)
		}
	case KindEventBridgeDLQ:
		o.Rule = &RuleOrigin{}
		o.Rule.RuleArn, _ = stringAttr(e.attrs, "RULE_ARN")
		o.Rule.TargetArn, _ = stringAttr(e.attrs, "TARGET_ARN")
		o.Rule.ErrorCode, _ = stringAttr(e.attrs, "ERROR_CODE")
		o.Rule.ErrorMessage, _ = stringAttr(e.attrs, "ERROR_MESSAGE")
		o.Rule.ExhaustedRetryCondition, _ = stringAttr(e.attrs, "EXHAUSTED_RETRY_CONDITION")
		if v, ok := stringAttr(e.attrs, "RETRY_ATTEMPTS"); ok {
			o.Rule.RetryAttempts, _ = strconv.Atoi(v)
		}
	}
	for _, d := range e.docs {
		switch d.kind {
		case KindSNS:
			o.SNS = snsOrigin(d.b)
		case KindEventBridge:
			o.EventBridge = eventOrigin(d.b)
		case KindLambdaDestination:
			o.Lambda = destinationOrigin(d.b)
		case KindS3:
			o.S3 = s3Origin(d.b)
		}
	}
	return o
}

func snsOrigin(b []byte) *SNSOrigin {
	var n struct {
		TopicArn, MessageId, Message, Timestamp string
		Subject                                 *string
		MessageAttributes                       map[string]SNSAttribute
	}
	_ = json.Unmarshal(b, &n) // detection checked the shape
	o := &SNSOrigin{TopicArn: n.TopicArn, MessageID: n.MessageId, Message: n.Message, Timestamp: n.Timestamp,
		MessageAttributes: n.MessageAttributes}
	if n.Subject != nil {
		o.Subject = *n.Subject
	}
	return o
}

func eventOrigin(b []byte) *EventOrigin {
	var ev struct {
		ID         string          `json:"id"`
		Source     string          `json:"source"`
		DetailType string          `json:"detail-type"`
		Account    string          `json:"account"`
		Region     string          `json:"region"`
		Time       string          `json:"time"`
		Resources  []string        `json:"resources"`
		Detail     json.RawMessage `json:"detail"`
	}
	_ = json.Unmarshal(b, &ev)
	if ev.Resources == nil {
		ev.Resources = []string{}
	}
	// The detail's exact bytes, not the copy Unmarshal made of them.
	return &EventOrigin{ID: ev.ID, Source: ev.Source, DetailType: ev.DetailType, Account: ev.Account,
		Region: ev.Region, Time: ev.Time, Resources: ev.Resources, Detail: member(b, "detail")}
}

func destinationOrigin(b []byte) *LambdaOrigin {
	var rec struct {
		RequestContext struct {
			RequestID              string `json:"requestId"`
			FunctionArn            string `json:"functionArn"`
			Condition              string `json:"condition"`
			ApproximateInvokeCount int    `json:"approximateInvokeCount"`
		} `json:"requestContext"`
		ResponseContext struct {
			StatusCode      int    `json:"statusCode"`
			ExecutedVersion string `json:"executedVersion"`
			FunctionError   string `json:"functionError"`
		} `json:"responseContext"`
	}
	_ = json.Unmarshal(b, &rec)
	c, r := rec.RequestContext, rec.ResponseContext
	return &LambdaOrigin{RequestID: c.RequestID, FunctionArn: c.FunctionArn, Condition: c.Condition,
		ApproximateInvokeCount: c.ApproximateInvokeCount, FunctionError: r.FunctionError,
		ExecutedVersion: r.ExecutedVersion, StatusCode: r.StatusCode}
}

func s3Origin(b []byte) *S3Origin {
	var ev struct {
		Records []struct {
			EventName string `json:"eventName"`
			S3        struct {
				Bucket struct{ Name string } `json:"bucket"`
				Object struct{ Key string }  `json:"object"`
			} `json:"s3"`
		}
		Event, Bucket string
	}
	_ = json.Unmarshal(b, &ev)
	if len(ev.Records) == 0 {
		return &S3Origin{EventName: ev.Event, Bucket: ev.Bucket}
	}
	r := ev.Records[0]
	return &S3Origin{EventName: r.EventName, Bucket: r.S3.Bucket.Name, Key: r.S3.Object.Key, Records: len(ev.Records)}
}
