package cmd

// targetOf is the target kind of a redrive's destination ARN: "lambda",
// "sns" or "events"; "" for a queue.
func targetOf(destURL string) string {
	switch svc := arnService(destURL); svc {
	case targetLambda, targetSNS, targetEvents:
		return svc
	}
	return ""
}
