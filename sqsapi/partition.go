package sqsapi

import (
	"regexp"
	"strings"
)

// Partition is one AWS partition: its ARN id, the prefix of its regions'
// names and the DNS suffix of its endpoints (the SDK's partitions.json).
type Partition struct {
	ID           string
	RegionPrefix string
	DNSSuffix    string
}

// Partitions are the partitions mfdlq knows, the most specific region
// prefix first; a region matching none is in "aws". ARNs name the first
// column ("arn:aws-iso-b:sqs:us-isob-east-1:…"), queue URLs end in the
// last (sqs.eu-isoe-west-1.cloud.adc-e.uk).
var Partitions = []Partition{
	{"aws-us-gov", "us-gov-", "amazonaws.com"},
	{"aws-iso-b", "us-isob-", "sc2s.sgov.gov"},
	{"aws-iso-f", "us-isof-", "csp.hci.ic.gov"},
	{"aws-iso-e", "eu-isoe-", "cloud.adc-e.uk"},
	{"aws-iso", "us-iso-", "c2s.ic.gov"},
	{"aws-eusc", "eusc-", "amazonaws.eu"},
	{"aws-cn", "cn-", "amazonaws.com.cn"},
	{"aws", "", "amazonaws.com"},
}

// PartitionOf is the ARN partition of region ("aws" for one it does not
// know, and for "").
func PartitionOf(region string) string {
	for _, p := range Partitions {
		if p.RegionPrefix != "" && strings.HasPrefix(region, p.RegionPrefix) {
			return p.ID
		}
	}
	return "aws"
}

// RegionRE matches a region's name in any partition: us-east-1,
// us-isob-east-1, eusc-de-east-1.
var RegionRE = regexp.MustCompile(`^[a-z]{2,4}(-[a-z]+)+-[0-9]{1,2}$`)

// hostRegion is the region an AWS queue URL's host names —
// sqs.REGION.SUFFIX, or the legacy REGION.queue.SUFFIX — in any
// partition's DNS suffix; "" for another host (an emulator).
func hostRegion(host string) string {
	for _, p := range Partitions {
		rest, ok := strings.CutSuffix(host, "."+p.DNSSuffix)
		if !ok {
			continue
		}
		labels := strings.Split(rest, ".")
		switch {
		case len(labels) == 2 && labels[0] == "sqs":
			return labels[1]
		case len(labels) == 2 && labels[1] == "queue":
			return labels[0]
		}
	}
	return ""
}
