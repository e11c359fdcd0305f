package idempotency

import (
	"maps"
	"slices"
	"strings"
)

// tableVars are the environment variables that name an idempotency table
// in the usual setups, most specific first: Powertools for AWS Lambda's,
// then the plain name most hand-written consumers use.
var tableVars = []string{"POWERTOOLS_IDEMPOTENCY_TABLE", "IDEMPOTENCY_TABLE", "IDEMPOTENCY_TABLE_NAME"}

// TableFromEnv finds the idempotency table a function's environment names:
// one of tableVars, else the first variable (by name) whose name holds
// IDEMPOTEN (the runbook's TABLA_IDEMPOTENCIA, ORDERS_IDEMPOTENCY_STORE …),
// else UntrustedVar (Java Powertools' docs' TABLE_NAME), which the reader
// takes for a store only when its records look like Powertools' (Trusted).
// It returns the table and the variable, or "" when none names one.
func TableFromEnv(vars map[string]string) (table, variable string) {
	for _, v := range tableVars {
		if t := strings.TrimSpace(vars[v]); t != "" {
			return t, v
		}
	}
	names := slices.Sorted(maps.Keys(vars))
	for _, k := range names {
		if t := strings.TrimSpace(vars[k]); t != "" && strings.Contains(strings.ToUpper(k), "IDEMPOTEN") {
			return t, k
		}
	}
	if t := strings.TrimSpace(vars[UntrustedVar]); t != "" {
		return t, UntrustedVar
	}
	return "", ""
}
