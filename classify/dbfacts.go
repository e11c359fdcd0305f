package classify

import (
	"regexp"
	"strings"
)

// The database servers' codes: an SQLSTATE (the SQL standard's, as
// PostgreSQL, MySQL and their drivers print it, or PostgreSQL's condition
// name as psycopg and asyncpg name their classes), an Oracle ORA- code, a
// SQL Server error number. Each is the same in every language the server
// writes its message in, so a German or Spanish error is decided by its
// code. The tables are in taxonomies.go.

var (
	sqlstateRe = []*regexp.Regexp{
		regexp.MustCompile(`(?i)\bsql[ _-]?state\b[^0-9A-Za-z]{0,4}([0-9A-Z]{5})\b`),
		regexp.MustCompile(`\b\d{4} \(([0-9]{2}[0-9A-Z]{3})\)`),                          // MySQL: ERROR 1062 (23000), IntegrityError: 1062 (23000)
		regexp.MustCompile(`PostgresException[^:\n]*: ([0-9A-Z]{5}): `),                  // Npgsql
		regexp.MustCompile(`(?m)^\s*([0-9]{2}[0-9A-Z]{3}): `),                            // Npgsql's Message alone: "23505: …"
		regexp.MustCompile(`(?i)["']?\b(?:pg)?code["']?\s*[:=]\s*["']([0-9A-Z]{5})["']`), // node-postgres, psycopg's pgcode
	}
)

// sqlstateFact reads an SQLSTATE (the SQL standard's five-character code,
// the same in every language the server writes its message in) and judges
// it by its class, the first two characters.
func sqlstateFact(t string) (fact, bool) {
	for _, tok := range tokens(t) {
		// psycopg's and asyncpg's classes are PostgreSQL's condition
		// names: psycopg2.errors.UniqueViolation, asyncpg.exceptions.UndefinedColumnError.
		for _, prefix := range []string{"psycopg2.errors.", "psycopg.errors.", "asyncpg.exceptions."} {
			if name, ok := strings.CutPrefix(tok, prefix); ok {
				name = strings.TrimSuffix(strings.ToLower(name), "error")
				if code, ok := pgConditions[name]; ok {
					r, _ := sqlstateRow(code)
					return r.fact("SQLSTATE", code), true
				}
			}
		}
	}
	for _, re := range sqlstateRe {
		for _, m := range re.FindAllStringSubmatch(t, 4) {
			code := strings.ToUpper(m[1])
			if r, ok := sqlstateRow(code); ok {
				return r.fact("SQLSTATE", code), true
			}
		}
	}
	return fact{}, false
}

func sqlstateRow(code string) (row, bool) {
	if r, ok := sqlstateCodes[code]; ok {
		return r, true
	}
	r, ok := sqlstateClasses[code[:2]]
	return r, ok
}

var (
	oraRe   = regexp.MustCompile(`\bORA-(\d{5})\b`)
	mssqlRe = []*regexp.Regexp{
		regexp.MustCompile(`Error Number:\s*(-?\d+)`), // .NET SqlException.ToString()
		regexp.MustCompile(`\bMsg (\d+), Level \d+`),  // sqlcmd, SSMS
	}
)

// vendorDBFact reads an Oracle ORA- code or a SQL Server error number:
// like an SQLSTATE, the same in every language the server writes.
func vendorDBFact(t string) (fact, bool) {
	if m := oraRe.FindStringSubmatch(t); m != nil {
		if r, ok := oracleCodes[m[1]]; ok {
			return r.fact("Oracle error", "ORA-"+m[1]), true
		}
	}
	for _, re := range mssqlRe {
		if m := re.FindStringSubmatch(t); m != nil {
			if r, ok := mssqlNumbers[m[1]]; ok {
				return r.fact("SQL Server error", m[1]), true
			}
		}
	}
	return fact{}, false
}
