package sqsapi

import "testing"

// Every partition of the SDK's partitions.json is known: its regions map
// to its ARN id, its queue URLs name their region.
func TestPartitions(t *testing.T) {
	for region, want := range map[string]string{
		"us-east-1": "aws", "eu-west-1": "aws", "cn-north-1": "aws-cn", "us-gov-west-1": "aws-us-gov",
		"us-iso-east-1": "aws-iso", "us-isob-east-1": "aws-iso-b", "eu-isoe-west-1": "aws-iso-e",
		"us-isof-south-1": "aws-iso-f", "eusc-de-east-1": "aws-eusc", "": "aws",
	} {
		if got := PartitionOf(region); got != want {
			t.Errorf("PartitionOf(%q) = %q, want %q", region, got, want)
		}
		if region != "" && !RegionRE.MatchString(region) {
			t.Errorf("RegionRE refuses %q", region)
		}
	}
	for url, region := range map[string]string{
		"https://sqs.us-isob-east-1.sc2s.sgov.gov/123456789012/orders-dlq":  "us-isob-east-1",
		"https://sqs.eusc-de-east-1.amazonaws.eu/123456789012/orders-dlq":   "eusc-de-east-1",
		"https://sqs.eu-isoe-west-1.cloud.adc-e.uk/123456789012/orders-dlq": "eu-isoe-west-1",
		"https://sqs.cn-north-1.amazonaws.com.cn/123456789012/orders-dlq":   "cn-north-1",
		"https://eu-west-1.queue.amazonaws.com/123456789012/orders-dlq":     "eu-west-1",
		"http://localhost:4566/123456789012/orders-dlq":                     "",
	} {
		r, err := parseRef(url)
		if err != nil || r.region != region || r.name != "orders-dlq" {
			t.Errorf("parseRef(%s) = %+v, %v; want region %q", url, r, err, region)
		}
	}
	for _, bad := range []string{"us-east", "useast1", "us-east-1a"} {
		if RegionRE.MatchString(bad) {
			t.Errorf("RegionRE accepts %q", bad)
		}
	}
}
