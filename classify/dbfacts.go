package classify

import (
	"regexp"
	"strings"
)

// The data stores' codes: an SQLSTATE (the SQL standard's, as
// PostgreSQL, MySQL and their drivers print it, or PostgreSQL's condition
// name as psycopg and asyncpg name their classes), an Oracle ORA- code, a
// SQL Server error number, the servers' own wording of a code, MongoDB's
// code names, Redis' error replies, Elasticsearch's exception types. Each is the same in every language the server
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
		// psycopg's, asyncpg's and Ruby pg's classes are PostgreSQL's
		// condition names: psycopg2.errors.UniqueViolation,
		// asyncpg.exceptions.UndefinedColumnError, PG::ForeignKeyViolation.
		for _, prefix := range []string{"psycopg2.errors.", "psycopg.errors.", "asyncpg.exceptions.", "PG::"} {
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
	return capturedFact(t, "SQL Server error", mssqlRe, mssqlNumbers)
}

// serverWordings are the messages PostgreSQL and MySQL write for a code
// when the driver prints the message alone: str() of a psycopg2 or PyMySQL
// exception, which is what a Python Lambda's ErrorMessage holds. Each is
// the server's own, fixed text for one SQLSTATE (PostgreSQL's source: the
// errcode each ereport is raised with; libpq's connection failures, which
// carry no code, as class 08; MySQL's "Server error message reference").
// English only, the servers' default: another language's message is
// decided when the driver prints its code. Most specific first: libpq
// wraps the server's FATAL ("connection to server … failed: FATAL:
// remaining connection slots …").
var serverWordings = []struct {
	server, code string
	re           *regexp.Regexp
}{
	{"PostgreSQL", "53300", regexp.MustCompile(`remaining connection slots are reserved|sorry, too many clients already|too many connections for (role|database)`)},
	{"PostgreSQL", "57P03", regexp.MustCompile(`the database system is (starting up|shutting down|in recovery mode)`)},
	{"PostgreSQL", "57P01", regexp.MustCompile(`terminating connection due to administrator command`)},
	{"PostgreSQL", "57014", regexp.MustCompile(`canceling statement due to statement timeout`)},
	{"PostgreSQL", "40P01", regexp.MustCompile(`\bdeadlock detected\b`)},
	{"PostgreSQL", "40001", regexp.MustCompile(`could not serialize access due to`)},
	{"PostgreSQL", "55P03", regexp.MustCompile(`could not obtain lock on (row|relation)`)},
	{"PostgreSQL", "25006", regexp.MustCompile(`cannot execute \w+ in a read-only transaction`)},
	{"PostgreSQL", "42703", regexp.MustCompile(`column "[^"]{1,128}"( of relation "[^"]{1,128}")? does not exist`)},
	{"PostgreSQL", "42P01", regexp.MustCompile(`relation "[^"]{1,128}" does not exist`)},
	{"PostgreSQL", "42883", regexp.MustCompile(`function [\w."]{1,128}\([^)\n]{0,200}\) does not exist|operator does not exist: `)},
	{"PostgreSQL", "42804", regexp.MustCompile(`column "[^"]{1,128}" is of type [\w ]{1,64} but expression is of type`)},
	{"PostgreSQL", "42501", regexp.MustCompile(`permission denied for (table|relation|schema|sequence|database|function) `)},
	{"PostgreSQL", "23505", regexp.MustCompile(`duplicate key value violates unique constraint`)},
	{"PostgreSQL", "23503", regexp.MustCompile(`violates foreign key constraint`)},
	{"PostgreSQL", "23502", regexp.MustCompile(`violates not-null constraint`)},
	{"PostgreSQL", "23514", regexp.MustCompile(`violates check constraint`)},
	{"PostgreSQL", "22P02", regexp.MustCompile(`invalid input syntax for (type )?\w+`)},
	{"PostgreSQL", "22001", regexp.MustCompile(`value too long for type character`)},
	{"PostgreSQL", "22003", regexp.MustCompile(`(numeric field overflow|value "[^"]{1,64}" is out of range for type)`)},
	{"PostgreSQL", "08006", regexp.MustCompile(`server closed the connection unexpectedly|SSL connection has been closed unexpectedly|SSL SYSCALL error: EOF detected|terminating connection due to (unexpected postmaster exit|idle-session timeout)`)},
	{"PostgreSQL", "08001", regexp.MustCompile(`connection to server (at|on socket) "[^"]{1,256}"[^\n]{0,64} failed|could not connect to server: `)},
	{"MySQL", "42S22", regexp.MustCompile(`Unknown column '[^']{1,128}' in '`)},
	{"MySQL", "42S02", regexp.MustCompile(`Table '[^']{1,192}' doesn't exist`)},
	{"MySQL", "08004", regexp.MustCompile(`\bToo many connections\b`)},
	{"MySQL", "40001", regexp.MustCompile(`Deadlock found when trying to get lock`)},
	{"MySQL", "23000", regexp.MustCompile(`Duplicate entry '[^']{0,192}' for key|Cannot add or update a child row: a foreign key constraint fails|Column '[^']{1,128}' cannot be null`)},
	{"MySQL", "08S01", regexp.MustCompile(`Lost connection to MySQL server|MySQL server has gone away`)},
}

// serverWordingFact reads a database server's own message for a code
// when no code is printed (serverWordings), and judges the code as
// sqlstateFact does.
func serverWordingFact(t string) (fact, bool) {
	for _, w := range serverWordings {
		if w.re.MatchString(t) {
			r, _ := sqlstateRow(w.code)
			return r.fact(w.server+"'s wording of SQLSTATE", w.code), true
		}
	}
	return fact{}, false
}

// MongoDB prints a server error's code name beside its number (the Java
// driver: "Command failed with error 11000 (DuplicateKey)", a codeName
// field) and a duplicate key's message starts with "E11000"; Node's
// MongoServerError prints the message alone.
var (
	mongoNameRe = []*regexp.Regexp{
		regexp.MustCompile(`\berror \d+ \((\w+)\)`),
		regexp.MustCompile(`codeName['"]?\s*[:=]\s*['"]?(\w+)`),
	}
	mongoMessages = []struct {
		name string
		re   *regexp.Regexp
	}{
		{"DuplicateKey", regexp.MustCompile(`\bE11000 duplicate key error`)},
		{"DocumentValidationFailure", regexp.MustCompile(`\bDocument failed validation\b`)},
		{"WriteConflict", regexp.MustCompile(`\bWriteConflict\b`)},
		{"MaxTimeMSExpired", regexp.MustCompile(`\boperation exceeded time limit\b`)},
	}
)

// mongoFact reads a MongoDB server error by its code name (mongoCodes).
func mongoFact(t string) (fact, bool) {
	if f, ok := capturedFact(t, "MongoDB error", mongoNameRe, mongoCodes); ok {
		return f, true
	}
	for _, m := range mongoMessages {
		if m.re.MatchString(t) {
			return mongoCodes[m.name].fact("MongoDB error", m.name), true
		}
	}
	return fact{}, false
}

// mongoCodes are MongoDB's server error codes by name (the server's
// src/mongo/base/error_codes.yml; the transient ones are those the drivers'
// retryable writes specification retries).
var mongoCodes = map[string]row{
	"DuplicateKey":                    {class: "11000: a document with this unique key exists already — the data", verdict: VerdictData},
	"DocumentValidationFailure":       {class: "121: the document fails the collection's validator — the data", verdict: VerdictData},
	"WriteConflict":                   {class: "112: another operation wrote the document: retryable", verdict: VerdictTransient},
	"MaxTimeMSExpired":                {class: "50: the operation ran over its time limit", verdict: VerdictTransient, timeout: true},
	"ExceededTimeLimit":               {class: "262: the operation ran over its time limit", verdict: VerdictTransient, timeout: true},
	"NetworkTimeout":                  {class: "89: a network call timed out", verdict: VerdictTransient, timeout: true},
	"NotWritablePrimary":              {class: "10107: the node is no longer primary (an election): retryable", verdict: VerdictTransient},
	"NotPrimaryNoSecondaryOk":         {class: "13435: the node is no longer primary (an election): retryable", verdict: VerdictTransient},
	"NotPrimaryOrSecondary":           {class: "13436: the node is recovering: retryable", verdict: VerdictTransient},
	"PrimarySteppedDown":              {class: "189: the primary stepped down (an election): retryable", verdict: VerdictTransient},
	"InterruptedAtShutdown":           {class: "11600: the server is shutting down: retryable", verdict: VerdictTransient},
	"InterruptedDueToReplStateChange": {class: "11602: an election interrupted the operation: retryable", verdict: VerdictTransient},
	"ShutdownInProgress":              {class: "91: the server is shutting down: retryable", verdict: VerdictTransient},
	"HostUnreachable":                 {class: "6: " + whyConnect, verdict: VerdictTransient},
	"HostNotFound":                    {class: "7: " + whyConnect, verdict: VerdictTransient},
	"Unauthorized":                    {class: "13: not authorized — " + whyPermission, verdict: VerdictTransient},
}

// redisReplies are the Redis server's own error replies, each led by its
// error code (the server's shared error replies in server.c, and the
// cluster's): the node is loading, a replica, out of memory, or the
// cluster is reconfiguring — the dependency, not the message.
var redisReplies = []namedMessage{
	{"OOM", regexp.MustCompile(`\bOOM command not allowed when used memory`), row{class: "the server is over its maxmemory: retryable, with more wait", verdict: VerdictTransient, wait: true}},
	{"LOADING", regexp.MustCompile(`\bLOADING Redis is loading the dataset in memory`), row{class: "the server is loading its data after a restart: retryable", verdict: VerdictTransient}},
	{"READONLY", regexp.MustCompile(`\bREADONLY You can't write against a read only (replica|slave)|You can't write against a read only replica`), row{class: "the node is a read-only replica (a failover): retryable", verdict: VerdictTransient}},
	{"MASTERDOWN", regexp.MustCompile(`\bMASTERDOWN Link with MASTER is down`), row{class: "the replica lost its primary: retryable", verdict: VerdictTransient}},
	{"CLUSTERDOWN", regexp.MustCompile(`\bCLUSTERDOWN\b`), row{class: "the cluster is down or reconfiguring: retryable", verdict: VerdictTransient}},
	{"TRYAGAIN", regexp.MustCompile(`\bTRYAGAIN Multiple keys request during rehashing`), row{class: "a slot is being migrated: retryable", verdict: VerdictTransient}},
	{"BUSY", regexp.MustCompile(`\bBUSY Redis is busy running a script`), row{class: "the server is busy running a script: retryable", verdict: VerdictTransient}},
}

// redisFact reads a Redis error reply (redisReplies).
func redisFact(t string) (fact, bool) { return messageFact(t, "Redis error", redisReplies) }

// searchExceptions are Elasticsearch's and OpenSearch's exception types as
// their clients print them ("version_conflict_engine_exception"), judged
// by the HTTP status the server answers them with (Elasticsearch's
// ElasticsearchException subclasses and their RestStatus).
var searchExceptions = map[string]row{
	"version_conflict_engine_exception":   {class: "409: the document changed since the message was made — the data", verdict: VerdictData},
	"document_missing_exception":          {class: "404: the document the message updates does not exist", verdict: VerdictData, missing: true},
	"mapper_parsing_exception":            {class: "400: a field of the document does not fit the index's mapping — the code and the data's format disagree", verdict: VerdictPoison},
	"document_parsing_exception":          {class: "400: a field of the document does not fit the index's mapping — the code and the data's format disagree", verdict: VerdictPoison},
	"illegal_argument_exception":          {class: "400: the request built from the message is invalid", verdict: VerdictData},
	"es_rejected_execution_exception":     {class: "429: the cluster's queue is full: retryable, with more wait", verdict: VerdictTransient, wait: true},
	"circuit_breaking_exception":          {class: "429: the cluster is short of memory: retryable, with more wait", verdict: VerdictTransient, wait: true},
	"cluster_block_exception":             {class: "the index is blocked (read-only after a full disk, or closed): retryable once the cluster is fixed", verdict: VerdictTransient},
	"no_shard_available_action_exception": {class: "503: no shard answered: retryable", verdict: VerdictTransient},
	"index_not_found_exception":           {class: "404: the index does not exist — the infrastructure (an index not created or rolled over): fix it, then redrive", verdict: VerdictTransient},
}

var searchExceptionRe = regexp.MustCompile(`\b[a-z_]{4,40}_exception\b`)

// searchFact reads an Elasticsearch or OpenSearch exception type.
func searchFact(t string) (fact, bool) {
	for _, name := range searchExceptionRe.FindAllString(t, 4) {
		if r, ok := searchExceptions[name]; ok {
			return r.fact("Elasticsearch error", name), true
		}
	}
	return fact{}, false
}
