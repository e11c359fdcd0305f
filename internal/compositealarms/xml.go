package compositealarms

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
)

const (
	namespace = "http://monitoring.amazonaws.com/doc/2010-08-01/"
	requestID = "00000000-0000-4000-8000-000000000000"
)

type describeResponse struct {
	XMLName xml.Name `xml:"DescribeAlarmsResponse"`
	NS      string   `xml:"xmlns,attr"`
	Result  struct {
		Metric    []metricXML       `xml:"MetricAlarms>member"`
		Composite []compositeMember `xml:"CompositeAlarms>member"`
		NextToken string            `xml:"NextToken,omitempty"`
	} `xml:"DescribeAlarmsResult"`
	RequestID string `xml:"ResponseMetadata>RequestId"`
}

type strList struct {
	Members []string `xml:"member"`
}

type compositeMember struct {
	AlarmName                          string  `xml:"AlarmName"`
	AlarmArn                           string  `xml:"AlarmArn"`
	AlarmDescription                   string  `xml:"AlarmDescription,omitempty"`
	AlarmRule                          string  `xml:"AlarmRule"`
	ActionsEnabled                     bool    `xml:"ActionsEnabled"`
	AlarmActions                       strList `xml:"AlarmActions"`
	OKActions                          strList `xml:"OKActions"`
	InsufficientDataActions            strList `xml:"InsufficientDataActions"`
	StateValue                         string  `xml:"StateValue"`
	StateReason                        string  `xml:"StateReason"`
	StateUpdatedTimestamp              string  `xml:"StateUpdatedTimestamp"`
	StateTransitionedTimestamp         string  `xml:"StateTransitionedTimestamp"`
	AlarmConfigurationUpdatedTimestamp string  `xml:"AlarmConfigurationUpdatedTimestamp"`
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func arn(name string) string {
	return "arn:aws:cloudwatch:" + Region + ":" + Account + ":alarm:" + name
}

func (a *composite) member() compositeMember {
	return compositeMember{AlarmName: a.name, AlarmArn: arn(a.name), AlarmDescription: a.description, AlarmRule: a.rule,
		ActionsEnabled: a.actionsEnabled, AlarmActions: strList{a.actions}, StateValue: a.state, StateReason: a.reason, StateUpdatedTimestamp: stamp(a.updated),
		StateTransitionedTimestamp: stamp(a.transitioned), AlarmConfigurationUpdatedTimestamp: stamp(a.configured)}
}

type dimensionXML struct {
	Name  string `xml:"Name"`
	Value string `xml:"Value"`
}

// metricXML is a metric alarm as moto described it, written back in the
// same shape.
type metricXML struct {
	AlarmName                          string         `xml:"AlarmName"`
	AlarmArn                           string         `xml:"AlarmArn"`
	AlarmDescription                   string         `xml:"AlarmDescription,omitempty"`
	ActionsEnabled                     bool           `xml:"ActionsEnabled"`
	AlarmActions                       strList        `xml:"AlarmActions"`
	OKActions                          strList        `xml:"OKActions"`
	InsufficientDataActions            strList        `xml:"InsufficientDataActions"`
	StateValue                         string         `xml:"StateValue"`
	StateReason                        string         `xml:"StateReason,omitempty"`
	StateReasonData                    string         `xml:"StateReasonData,omitempty"`
	StateUpdatedTimestamp              string         `xml:"StateUpdatedTimestamp,omitempty"`
	StateTransitionedTimestamp         string         `xml:"StateTransitionedTimestamp,omitempty"`
	AlarmConfigurationUpdatedTimestamp string         `xml:"AlarmConfigurationUpdatedTimestamp,omitempty"`
	MetricName                         string         `xml:"MetricName,omitempty"`
	Namespace                          string         `xml:"Namespace,omitempty"`
	Statistic                          string         `xml:"Statistic,omitempty"`
	Dimensions                         []dimensionXML `xml:"Dimensions>member"`
	Period                             string         `xml:"Period,omitempty"`
	EvaluationPeriods                  string         `xml:"EvaluationPeriods,omitempty"`
	DatapointsToAlarm                  string         `xml:"DatapointsToAlarm,omitempty"`
	Threshold                          string         `xml:"Threshold,omitempty"`
	ComparisonOperator                 string         `xml:"ComparisonOperator,omitempty"`
	TreatMissingData                   string         `xml:"TreatMissingData,omitempty"`
	Metrics                            []queryXML     `xml:"Metrics>member"`
}

// queryXML is one MetricDataQuery of a metric-math alarm.
type queryXML struct {
	ID         string         `xml:"Id"`
	Expression string         `xml:"Expression,omitempty"`
	Label      string         `xml:"Label,omitempty"`
	MetricStat *metricStatXML `xml:"MetricStat,omitempty"`
	ReturnData bool           `xml:"ReturnData"`
	Period     string         `xml:"Period,omitempty"`
}

type metricStatXML struct {
	Namespace  string         `xml:"Metric>Namespace"`
	MetricName string         `xml:"Metric>MetricName"`
	Dimensions []dimensionXML `xml:"Metric>Dimensions>member"`
	Period     string         `xml:"Period"`
	Stat       string         `xml:"Stat"`
	Unit       string         `xml:"Unit,omitempty"`
}

func optStamp(t *time.Time) string {
	if t == nil {
		return ""
	}
	return stamp(*t)
}

func optInt(p *int32) string {
	if p == nil {
		return ""
	}
	return strconv.Itoa(int(*p))
}

func metricMember(a types.MetricAlarm) metricXML {
	m := metricXML{AlarmName: aws.ToString(a.AlarmName), AlarmArn: aws.ToString(a.AlarmArn), AlarmDescription: aws.ToString(a.AlarmDescription),
		ActionsEnabled: aws.ToBool(a.ActionsEnabled), AlarmActions: strList{a.AlarmActions}, OKActions: strList{a.OKActions},
		InsufficientDataActions: strList{a.InsufficientDataActions}, StateValue: string(a.StateValue), StateReason: aws.ToString(a.StateReason),
		StateUpdatedTimestamp: optStamp(a.StateUpdatedTimestamp), StateTransitionedTimestamp: optStamp(a.StateTransitionedTimestamp),
		AlarmConfigurationUpdatedTimestamp: optStamp(a.AlarmConfigurationUpdatedTimestamp), MetricName: aws.ToString(a.MetricName),
		Namespace: aws.ToString(a.Namespace), Statistic: string(a.Statistic), Period: optInt(a.Period), EvaluationPeriods: optInt(a.EvaluationPeriods),
		DatapointsToAlarm: optInt(a.DatapointsToAlarm), ComparisonOperator: string(a.ComparisonOperator), TreatMissingData: aws.ToString(a.TreatMissingData)}
	if a.Threshold != nil {
		m.Threshold = strconv.FormatFloat(*a.Threshold, 'f', -1, 64)
	}
	for _, d := range a.Dimensions {
		m.Dimensions = append(m.Dimensions, dimensionXML{aws.ToString(d.Name), aws.ToString(d.Value)})
	}
	m.StateReasonData = aws.ToString(a.StateReasonData)
	for _, q := range a.Metrics {
		x := queryXML{ID: aws.ToString(q.Id), Expression: aws.ToString(q.Expression), Label: aws.ToString(q.Label),
			ReturnData: q.ReturnData == nil || *q.ReturnData, Period: optInt(q.Period)}
		if ms := q.MetricStat; ms != nil && ms.Metric != nil {
			x.MetricStat = &metricStatXML{Namespace: aws.ToString(ms.Metric.Namespace), MetricName: aws.ToString(ms.Metric.MetricName),
				Period: optInt(ms.Period), Stat: aws.ToString(ms.Stat), Unit: string(ms.Unit)}
			for _, d := range ms.Metric.Dimensions {
				x.MetricStat.Dimensions = append(x.MetricStat.Dimensions, dimensionXML{aws.ToString(d.Name), aws.ToString(d.Value)})
			}
		}
		m.Metrics = append(m.Metrics, x)
	}
	return m
}

// emptyResponse is the answer of a call that returns nothing.
type emptyXML struct {
	XMLName   xml.Name
	NS        string `xml:"xmlns,attr"`
	RequestID string `xml:"ResponseMetadata>RequestId"`
}

func emptyResponse(action string) any {
	return &emptyXML{XMLName: xml.Name{Local: action + "Response"}, NS: namespace, RequestID: requestID}
}

func writeXML(w http.ResponseWriter, v any) {
	var b bytes.Buffer
	b.WriteString(xml.Header)
	if err := xml.NewEncoder(&b).Encode(v); err != nil {
		writeErr(w, http.StatusInternalServerError, "InternalFailure", err.Error())
		return
	}
	w.Header().Set("Content-Type", "text/xml")
	w.Write(b.Bytes())
}

// writeErr writes an awsQuery error.
func writeErr(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "text/xml")
	w.WriteHeader(status)
	var b bytes.Buffer
	xml.EscapeText(&b, []byte(msg))
	io.WriteString(w, fmt.Sprintf(`<ErrorResponse xmlns="%s"><Error><Type>Sender</Type><Code>%s</Code><Message>%s</Message></Error><RequestId>%s</RequestId></ErrorResponse>`, namespace, code, b.String(), requestID))
}
