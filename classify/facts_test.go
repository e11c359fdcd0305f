package classify

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFacts: each taxonomy's facts, read from the texts runtimes and
// services write, decide before any phrase; precedence between them.
func TestFacts(t *testing.T) {
	tests := []struct {
		text, fact string
		v          Verdict
	}{
		// SQLSTATE by class, in any language
		{`FEHLER: Spalte »total« hat Typ integer, aber der Ausdruck hat Typ text (SQLSTATE 42804)`, "SQLSTATE 42804", VerdictPoison},
		{`ERROR: la relación «orders_v2» no existe (SQLSTATE 42P01)`, "SQLSTATE 42P01", VerdictPoison},
		{`ERROR: duplicate key value violates unique constraint "orders_pkey" (SQLSTATE 23505)`, "SQLSTATE 23505", VerdictData},
		{`ERROR: could not serialize access due to concurrent update (SQLSTATE 40001)`, "SQLSTATE 40001", VerdictTransient},
		{`FATAL: terminating connection due to administrator command (SQLSTATE 57P01)`, "SQLSTATE 57P01", VerdictTransient},
		{`Error 1062 (23000): Duplicate entry 'ord-1' for key 'PRIMARY'`, "SQLSTATE 23000", VerdictData},
		{`Npgsql.PostgresException (0x80004005): 22P02: invalid input syntax for type uuid: "x"`, "SQLSTATE 22P02", VerdictData},
		{`{"code":"08006","message":"connection failure"}`, "SQLSTATE 08006", VerdictTransient},
		{"mysql.connector.errors.IntegrityError: 1062 (23000): Duplicate entry 'ord-1' for key 'PRIMARY'", "SQLSTATE 23000", VerdictData},
		{`sqlalchemy.exc.ProgrammingError: (psycopg2.errors.UndefinedColumn) column "currency" does not exist`, "SQLSTATE 42703", VerdictPoison},
		{`asyncpg.exceptions.UniqueViolationError: doppelter Schlüsselwert verletzt Unique-Constraint »orders_pkey«`, "SQLSTATE 23505", VerdictData},
		{`psycopg2.errors.SerializationFailure: could not serialize access due to concurrent update`, "SQLSTATE 40001", VerdictTransient},
		{"ActiveRecord::InvalidForeignKey: PG::ForeignKeyViolation: ERROR:  insert or update on table \"shipments\" violates foreign key constraint", "SQLSTATE 23503", VerdictData},
		{"23505: doppelter Schlüsselwert verletzt Unique-Constraint »orders_pkey«", "SQLSTATE 23505", VerdictData},
		// the servers' own wording, when the driver prints no code (a
		// Python Lambda's ErrorMessage is str(e) of psycopg2's exception)
		{"column \"reserved_until\" of relation \"reservations\" does not exist\nLINE 1: ...INSERT INTO reservations (sku, qty, reserved_until...", "PostgreSQL's wording of SQLSTATE 42703", VerdictPoison},
		{"function jsonb_path_exists_tz(jsonb, unknown) does not exist", "PostgreSQL's wording of SQLSTATE 42883", VerdictPoison},
		{"the function orders-consumer does not exist in this account", "", ""},
		{`relation "orders_v2" does not exist`, "PostgreSQL's wording of SQLSTATE 42P01", VerdictPoison},
		{"connection to server at \"orders-db\" (10.0.3.17), port 5432 failed: FATAL:  remaining connection slots are reserved for non-replication superuser connections", "PostgreSQL's wording of SQLSTATE 53300", VerdictTransient},
		{"connection to server at \"orders-db\" (10.0.3.17), port 5432 failed: Connection refused\n\tIs the server running on that host and accepting TCP/IP connections?", "PostgreSQL's wording of SQLSTATE 08001", VerdictTransient},
		{"server closed the connection unexpectedly\n\tThis probably means the server terminated abnormally", "PostgreSQL's wording of SQLSTATE 08006", VerdictTransient},
		{"FATAL:  sorry, too many clients already", "PostgreSQL's wording of SQLSTATE 53300", VerdictTransient},
		{"canceling statement due to statement timeout", "PostgreSQL's wording of SQLSTATE 57014", VerdictTransient},
		{"insert or update on table \"invoice\" violates foreign key constraint \"invoice_customer_fk\"", "PostgreSQL's wording of SQLSTATE 23503", VerdictData},
		{"(1054, \"Unknown column 'discount_code' in 'field list'\")", "MySQL's wording of SQLSTATE 42S22", VerdictPoison},
		{"(1146, \"Table 'shop.orders_v2' doesn't exist\")", "MySQL's wording of SQLSTATE 42S02", VerdictPoison},
		{"(1040, 'Too many connections')", "MySQL's wording of SQLSTATE 08004", VerdictTransient},
		{"(psycopg2.OperationalError) SSL connection has been closed unexpectedly", "PostgreSQL's wording of SQLSTATE 08006", VerdictTransient},
		// MongoDB's code names, by name or by the message that carries them
		{`MongoServerError: E11000 duplicate key error collection: shop.payments index: idempotency_key_1 dup key: { idempotency_key: "pay-1" }`, "MongoDB error DuplicateKey", VerdictData},
		{"com.mongodb.MongoCommandException: Command failed with error 112 (WriteConflict): 'Plan executor error during findAndModify'", "MongoDB error WriteConflict", VerdictTransient},
		{"MongoServerError: Document failed validation", "MongoDB error DocumentValidationFailure", VerdictData},
		{"MongoServerSelectionError: Server selection timed out after 30000 ms", "exception type MongoServerSelectionError", VerdictTransient},
		// Redis' error replies, Elasticsearch's exception types
		{"ReplyError: LOADING Redis is loading the dataset in memory", "Redis error LOADING", VerdictTransient},
		{"redis.exceptions.ResponseError: OOM command not allowed when used memory > 'maxmemory'.", "Redis error OOM", VerdictTransient},
		{"ResponseError: version_conflict_engine_exception: [ord-1]: version conflict, required seqNo [12]", "Elasticsearch error version_conflict_engine_exception", VerdictData},
		{"elasticsearch.exceptions.TransportError: TransportError(429, 'es_rejected_execution_exception', 'rejected execution')", "Elasticsearch error es_rejected_execution_exception", VerdictTransient},
		// circuit breakers open: the dependency was failing
		{"io.github.resilience4j.circuitbreaker.CallNotPermittedException: CircuitBreaker 'pricing' is OPEN and does not permit further calls", "exception type io.github.resilience4j.circuitbreaker.CallNotPermittedException", VerdictTransient},
		{"Polly.CircuitBreaker.BrokenCircuitException: The circuit is now open and is not allowing calls.", "exception type Polly.CircuitBreaker.BrokenCircuitException", VerdictTransient},
		{"OpenCircuitError: Breaker is open", "exception type Breaker is open", VerdictTransient},
		// memory limits (compared, as timeouts are)
		{"java.lang.OutOfMemoryError: Java heap space", "exception type java.lang.OutOfMemoryError", VerdictTransient},
		{"fatal error: runtime: out of memory", "exception type runtime: out of memory", VerdictTransient},
		// a number the code cannot read, as Java's NumberFormatException
		{`strconv.ParseFloat: parsing "12,50": invalid syntax`, "exception type *strconv.NumError", VerdictPoison},
		{"ValueError: invalid literal for int() with base 10: '12,50'", "exception type ValueError: invalid literal", VerdictPoison},
		// Java's own messages without a decisive type
		{"java.lang.IllegalArgumentException: No enum constant com.acme.OrderStatus.PARTIALLY_SHIPPED", "exception type IllegalArgumentException: No enum constant", VerdictPoison},
		{"com.amazonaws.services.lambda.runtime.api.client.UserFault: An error occurred during JSON parsing", "exception type UserFault: JSON parsing", VerdictPoison},
		// Oracle and SQL Server numbers, in any language
		{"java.sql.SQLIntegrityConstraintViolationException: ORA-00001: Unique Constraint (SHOP.ORDERS_PK) verletzt", "Oracle error ORA-00001", VerdictData},
		{"ORA-00942: Tabelle oder View nicht vorhanden", "Oracle error ORA-00942", VerdictPoison},
		{"Microsoft.Data.SqlClient.SqlException (0x80131904): Verletzung der PRIMARY KEY-Einschränkung \"PK_Orders\".\nError Number:2627,State:1,Class:14", "SQL Server error 2627", VerdictData},
		{"Msg 1205, Level 13, State 51: Transaction was deadlocked", "SQL Server error 1205", VerdictTransient},
		// AWS error codes: the SDK's retry lists, then the documented ones
		{"ConditionalCheckFailedException: The conditional request failed", "AWS error code ConditionalCheckFailedException", VerdictData},
		{"operation error DynamoDB: PutItem, https response error StatusCode: 400, RequestID: X, ConditionalCheckFailedException: The conditional request failed", "AWS error code ConditionalCheckFailedException", VerdictData},
		{"botocore.errorfactory.ConditionalCheckFailedException: An error occurred (ConditionalCheckFailedException) when calling the PutItem operation", "AWS error code ConditionalCheckFailedException", VerdictData},
		{"TransactionCanceledException: Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed]", "AWS error code TransactionCanceledException [ConditionalCheckFailed]", VerdictData},
		{"TransactionCanceledException: Transaction cancelled, please refer cancellation reasons for specific reasons [ThrottlingError, None]", "AWS error code TransactionCanceledException [ThrottlingError]", VerdictTransient},
		{"ProvisionedThroughputExceededException: Rate of requests exceeds the allowed throughput. StatusCode: 400", "AWS error code ProvisionedThroughputExceededException", VerdictTransient},
		{"RequestTimeout: Your socket connection to the server was not read from or written to within the timeout period", "AWS error code RequestTimeout", VerdictTransient},
		{"ValidationException: One or more parameter values were invalid: Missing the key id in the item", "AWS error code ValidationException", VerdictData},
		{"AccessDeniedException: User: arn:aws:sts::1:assumed-role/x is not authorized to perform: dynamodb:PutItem", "AWS error code AccessDeniedException", VerdictTransient},
		// HTTP status and class
		{"PricingClientError: POST /v2/quotes returned status 503", "HTTP status 503", VerdictTransient},
		{"PricingClientError: POST /v2/quotes returned status 422", "HTTP status 422", VerdictData},
		{"requests.exceptions.HTTPError: 409 Client Error: Conflict for url: https://x/y", "HTTP status 409", VerdictData},
		{"upstream said HTTP/1.1 412 Precondition Failed", "HTTP status 412", VerdictData},
		{"HttpRequestException: Response status code does not indicate success: 429 (Too Many Requests).", "HTTP status 429", VerdictTransient},
		{"got HTTP 408 from the ledger", "HTTP status 408", VerdictTransient},
		{"HTTPError: 503", "HTTP status 503", VerdictTransient},
		{"InventoryClientError(code=409, reservation already held)", "HTTP status 409", VerdictData},
		{"HTTPError: 400", "HTTP status 400", VerdictData},
		{"urllib.error.HTTPError: HTTP Error 503: Service Unavailable", "HTTP status 503", VerdictTransient},
		{"upstream error 404 for /v1/customers/C-77", "HTTP status 404", VerdictData},
		{"Error 1062: Duplicate entry", "", ""},
		// gRPC
		{"rpc error: code = Unavailable desc = connection error", "gRPC status UNAVAILABLE", VerdictTransient},
		{"io.grpc.StatusRuntimeException: INVALID_ARGUMENT: quantity must be positive", "gRPC status INVALID_ARGUMENT", VerdictData},
		{"<_InactiveRpcError of RPC that terminated with: status = StatusCode.DEADLINE_EXCEEDED", "gRPC status DEADLINE_EXCEEDED", VerdictTransient},
		{"Error: 12 UNIMPLEMENTED: unknown method Reserve", "gRPC status UNIMPLEMENTED", VerdictPoison},
		// errno
		{"Error: connect ECONNREFUSED 10.0.0.7:5432", "errno ECONNREFUSED", VerdictTransient},
		{"[Errno 111] Connection refused", "errno ECONNREFUSED", VerdictTransient},
		{"Errno::ECONNRESET: Connection reset by peer", "errno ECONNRESET", VerdictTransient},
		// Lambda
		{"2024-03-12T14:02:06.010Z 7ae1b6d2 Task timed out after 6.01 seconds", "Lambda errorType Sandbox.Timedout", VerdictTransient},
		{`{"errorType":"Runtime.ImportModuleError","errorMessage":"Unable to import module 'app': No module named 'pydantic'"}`, "Lambda errorType Runtime.ImportModuleError", VerdictPoison},
		// Step Functions' error names
		{`{"Error":"States.Timeout","Cause":""}`, "Step Functions error States.Timeout", VerdictTransient},
		{"States.DataLimitExceeded: The state/task 'Enrich' returned a result with a size exceeding the maximum number of bytes service limit.", "Step Functions error States.DataLimitExceeded", VerdictPoison},
		{"States.Runtime: An error occurred while executing the state 'Charge'. The JSONPath '$.customer.id' specified for the field 'CustomerId.$' could not be found in the input", "Step Functions error States.Runtime", VerdictPoison},
		{"Lambda.TooManyRequestsException: Rate Exceeded.", "Step Functions error Lambda.TooManyRequestsException", VerdictTransient},
		// exception types of the runtimes
		{"json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)", "exception type JSONDecodeError", VerdictPoison},
		{"ValueError: could not read order: Expecting value: line 1 column 1 (char 0)", "exception type JSONDecodeError", VerdictPoison},
		{"OrderRejected: invalid character 'N' looking for beginning of value", "exception type *json.SyntaxError", VerdictPoison},
		{"json: cannot unmarshal string into Go struct field Order.total of type float64", "exception type *json.UnmarshalTypeError", VerdictPoison},
		{"com.fasterxml.jackson.core.JsonParseException: Unrecognized token 'NaN': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')", "exception type JsonParseException", VerdictPoison},
		{"System.Text.Json.JsonException: The JSON value could not be converted to System.Decimal. Path: $.total", "exception type System.Text.Json.JsonException", VerdictPoison},
		{"KeyError: 'currency'", "exception type KeyError", VerdictPoison},
		{"JSON::ParserError: unexpected token at 'NaN'", "exception type JSON::ParserError", VerdictPoison},
		{"ActiveRecord::RecordNotFound: Couldn't find Customer with 'id'=42", "exception type ActiveRecord::RecordNotFound", VerdictData},
		{"java.net.SocketTimeoutException: Read timed out", "exception type java.net.SocketTimeoutException", VerdictTransient},
		{"TypeError: fetch failed", "exception type TypeError: fetch failed", VerdictTransient},
		{"org.springframework.jdbc.BadSqlGrammarException: PreparedStatementCallback; bad SQL grammar [insert into orders …]", "exception type org.springframework.jdbc.BadSqlGrammarException", VerdictPoison},
		// no fact: the phrases decide
		{"SkuNotFound: SKU-9123", "", ""},
		{"card_declined: insufficient_funds", "", ""},
		{"order 503 is locked", "", ""},
		{`ValidationError: {"postcode":"22041","country":"DE"} is not deliverable`, "", ""},
		{"ReconcileError: the ledger query returned 500 rows, expected 1", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			got, v := "", Verdict("")
			if f, ok := factOf(tt.text); ok {
				got, v = f.taxonomy+" "+f.code, f.verdict
			}
			if diff := cmp.Diff([]string{tt.fact, string(tt.v)}, []string{got, string(v)}); diff != "" {
				t.Errorf("[fact verdict] (-want +got)\n%s", diff)
			}
		})
	}
}
