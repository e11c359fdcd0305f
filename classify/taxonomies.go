package classify

import "regexp"

// row is what a taxonomy says of one code or class. Each table below is
// documented, with its source, in docs/classify.md ("Typed facts").
type row struct {
	class   string
	verdict Verdict
	wait    bool
	timeout bool
	limit   bool
	missing bool // the message names a row that does not exist
}

const (
	whyPermission = "a permission or credential of the consumer is missing — the infrastructure's fault, not the message's: fix it, then redrive"
	whyMissingRes = "a table, queue or function the consumer calls does not exist — the infrastructure's fault, not the message's: fix it, then redrive"
)

// awsCodes are the AWS error codes the SDK does not retry whose meaning
// for the message is documented: DynamoDB's API reference (Common errors,
// PutItem/UpdateItem/TransactWriteItems errors), the AWS common errors
// page, and the services' API references for the permission codes.
var awsCodes = map[string]row{
	"ConditionalCheckFailedException":          {class: "DynamoDB: the item's condition is false — the data's state, not a dependency: retrying fails again (DynamoDB API reference, not retryable)", verdict: VerdictData},
	"TransactionConflictException":             {class: "DynamoDB: another transaction held the item — retryable", verdict: VerdictTransient},
	"ItemCollectionSizeLimitExceededException": {class: "DynamoDB: the item collection is over 10 GB — the data's size", verdict: VerdictData},
	"ValidationException":                      {class: "the request built from the message is invalid: not retryable as is", verdict: VerdictData},
	"InvalidParameterValue":                    {class: "a parameter built from the message is invalid: not retryable as is", verdict: VerdictData},
	"InvalidParameterValueException":           {class: "a parameter built from the message is invalid: not retryable as is", verdict: VerdictData},
	"InvalidParameterException":                {class: "a parameter built from the message is invalid: not retryable as is", verdict: VerdictData},
	"SerializationException":                   {class: "the request could not be serialized or read: the code and the API disagree", verdict: VerdictPoison},
	"RequestEntityTooLargeException":           {class: "the request built from the message is over the API's size limit: it will fail again", verdict: VerdictPoison},
	"NoSuchKey":                                {class: "S3: the object the message names does not exist", verdict: VerdictData, missing: true},
	"AccessDenied":                             {class: whyPermission, verdict: VerdictTransient},
	"AccessDeniedException":                    {class: whyPermission, verdict: VerdictTransient},
	"UnauthorizedOperation":                    {class: whyPermission, verdict: VerdictTransient},
	"KMSAccessDeniedException":                 {class: whyPermission, verdict: VerdictTransient},
	"ExpiredToken":                             {class: whyPermission, verdict: VerdictTransient},
	"ExpiredTokenException":                    {class: whyPermission, verdict: VerdictTransient},
	"UnrecognizedClientException":              {class: whyPermission, verdict: VerdictTransient},
	"InvalidClientTokenId":                     {class: whyPermission, verdict: VerdictTransient},
	"ResourceNotFoundException":                {class: whyMissingRes, verdict: VerdictTransient},
	"NoSuchBucket":                             {class: whyMissingRes, verdict: VerdictTransient},
	"InternalServerError":                      {class: "the service failed: retryable (AWS common errors, 500)", verdict: VerdictTransient},
	"InternalFailure":                          {class: "the service failed: retryable (AWS common errors, 500)", verdict: VerdictTransient},
	"InternalError":                            {class: "the service failed: retryable (AWS common errors, 500)", verdict: VerdictTransient},
	"ServiceUnavailable":                       {class: "the service is unavailable: retryable (AWS common errors, 503)", verdict: VerdictTransient},
	"ServiceUnavailableException":              {class: "the service is unavailable: retryable (AWS common errors, 503)", verdict: VerdictTransient},
	"ENILimitReachedException":                 {class: "Lambda could not create a network interface: retryable", verdict: VerdictTransient},
}

// cancellationReasons judge a DynamoDB TransactionCanceledException by the
// reason codes its CancellationReasons list (DynamoDB API reference,
// TransactWriteItems): the first listed here that the text holds decides.
var cancellationReasons = []struct {
	reason string
	row
}{
	{"ConditionalCheckFailed", row{class: "a condition of the transaction is false — the data's state: retrying fails again", verdict: VerdictData}},
	{"ItemCollectionSizeLimitExceeded", row{class: "an item collection is over 10 GB — the data's size", verdict: VerdictData}},
	{"ValidationError", row{class: "an item of the transaction is invalid", verdict: VerdictData}},
	{"TransactionConflict", row{class: "another transaction held an item: retryable", verdict: VerdictTransient}},
	{"ThrottlingError", row{class: "the table throttled the transaction: retryable, with more wait", verdict: VerdictTransient, wait: true}},
	{"ProvisionedThroughputExceeded", row{class: "the table throttled the transaction: retryable, with more wait", verdict: VerdictTransient, wait: true}},
}

// sqlstateClasses judge an SQLSTATE by its class (PostgreSQL documentation,
// Appendix A "PostgreSQL Error Codes", after the SQL standard's classes).
var sqlstateClasses = map[string]row{
	"08": {class: "class 08: connection exception", verdict: VerdictTransient},
	"40": {class: "class 40: transaction rollback (serialization failure, deadlock) — retryable", verdict: VerdictTransient},
	"53": {class: "class 53: insufficient resources", verdict: VerdictTransient, wait: true},
	"58": {class: "class 58: system error (the server's I/O)", verdict: VerdictTransient},
	"22": {class: "class 22: data exception — a value of the message does not fit", verdict: VerdictData},
	"23": {class: "class 23: integrity constraint violation — the data breaks a rule", verdict: VerdictData},
	"42": {class: "class 42: the code and the schema disagree", verdict: VerdictPoison},
	"0A": {class: "class 0A: feature not supported — the code asks what the server cannot do", verdict: VerdictPoison},
	"28": {class: "class 28: invalid authorization — " + whyPermission, verdict: VerdictTransient},
}

// sqlstateCodes are the codes whose meaning differs from their class's.
var sqlstateCodes = map[string]row{
	"57P01": {class: "57P01 admin shutdown: the server is restarting", verdict: VerdictTransient},
	"57P02": {class: "57P02 crash shutdown: the server is restarting", verdict: VerdictTransient},
	"57P03": {class: "57P03 cannot connect now: the server is starting", verdict: VerdictTransient},
	"57P05": {class: "57P05 idle session timeout", verdict: VerdictTransient},
	"57014": {class: "57014 query canceled (a statement timeout)", verdict: VerdictTransient, timeout: true},
	"55P03": {class: "55P03 lock not available", verdict: VerdictTransient},
	"55006": {class: "55006 object in use", verdict: VerdictTransient},
	"42501": {class: "42501 insufficient privilege — " + whyPermission, verdict: VerdictTransient},
	"23503": {class: "23503 foreign key violation: a row the message refers to does not exist", verdict: VerdictData, missing: true},
	"25006": {class: "25006 read-only SQL transaction: a write reached a replica (a failover)", verdict: VerdictTransient},
	"53200": {class: "53200 out of memory (the server's)", verdict: VerdictTransient},
	"23000": {class: "class 23: integrity constraint violation — the data breaks a rule", verdict: VerdictData},
}

// pgConditions are PostgreSQL's condition names (Appendix A), lowercased
// without underscores, as psycopg and asyncpg name their classes.
var pgConditions = map[string]string{
	"uniqueviolation": "23505", "foreignkeyviolation": "23503", "notnullviolation": "23502", "checkviolation": "23514",
	"exclusionviolation": "23P01", "integrityconstraintviolation": "23000", "invalidtextrepresentation": "22P02",
	"numericvalueoutofrange": "22003", "stringdatarighttruncation": "22001", "invaliddatetimeformat": "22007",
	"datetimefieldoverflow": "22008", "divisionbyzero": "22012", "invalidparametervalue": "22023", "dataexception": "22000",
	"undefinedcolumn": "42703", "undefinedtable": "42P01", "undefinedfunction": "42883", "datatypemismatch": "42804",
	"syntaxerror": "42601", "insufficientprivilege": "42501", "ambiguouscolumn": "42702", "featurenotsupported": "0A000",
	"serializationfailure": "40001", "deadlockdetected": "40P01", "locknotavailable": "55P03", "adminshutdown": "57P01",
	"crashshutdown": "57P02", "cannotconnectnow": "57P03", "querycanceled": "57014", "toomanyconnections": "53300",
	"outofmemory": "53200", "diskfull": "53100", "connectionexception": "08000", "connectionfailure": "08006",
	"sqlclientunabletoestablishsqlconnection": "08001", "connectiondoesnotexist": "08003", "readonlysqltransaction": "25006",
}

// oracleCodes are Oracle Database error codes (Oracle "Database Error
// Messages").
var oracleCodes = map[string]row{
	"00001": {class: "unique constraint violated — the row exists already", verdict: VerdictData},
	"02291": {class: "integrity constraint violated — parent key not found", verdict: VerdictData, missing: true},
	"02292": {class: "integrity constraint violated — child record found", verdict: VerdictData},
	"01400": {class: "cannot insert NULL — a value of the message is missing", verdict: VerdictData},
	"12899": {class: "value too large for the column", verdict: VerdictData},
	"01722": {class: "invalid number — a value of the message is not a number", verdict: VerdictData},
	"01438": {class: "value larger than the column's precision", verdict: VerdictData},
	"00942": {class: "table or view does not exist — the code and the schema disagree", verdict: VerdictPoison},
	"00904": {class: "invalid identifier — the code and the schema disagree", verdict: VerdictPoison},
	"00060": {class: "deadlock detected — retryable", verdict: VerdictTransient},
	"00054": {class: "resource busy (a lock) — retryable", verdict: VerdictTransient},
	"12541": {class: "no listener — the database cannot be reached", verdict: VerdictTransient},
	"12170": {class: "connect timeout", verdict: VerdictTransient, timeout: true},
	"03113": {class: "end-of-file on the communication channel", verdict: VerdictTransient},
	"03114": {class: "not connected to the database", verdict: VerdictTransient},
	"01013": {class: "the call was cancelled (a timeout)", verdict: VerdictTransient, timeout: true},
}

// mssqlNumbers are SQL Server error numbers (SQL Server "Database engine
// events and errors").
var mssqlNumbers = map[string]row{
	"2627":  {class: "PRIMARY KEY or UNIQUE constraint violated — the row exists already", verdict: VerdictData},
	"2601":  {class: "duplicate key in a unique index", verdict: VerdictData},
	"547":   {class: "a constraint (FOREIGN KEY, CHECK) conflicts with the data", verdict: VerdictData},
	"515":   {class: "cannot insert NULL — a value of the message is missing", verdict: VerdictData},
	"8152":  {class: "string or binary data would be truncated", verdict: VerdictData},
	"2628":  {class: "string or binary data would be truncated", verdict: VerdictData},
	"245":   {class: "conversion failed — a value of the message has another type", verdict: VerdictData},
	"208":   {class: "invalid object name — the code and the schema disagree", verdict: VerdictPoison},
	"207":   {class: "invalid column name — the code and the schema disagree", verdict: VerdictPoison},
	"1205":  {class: "deadlock victim — retryable", verdict: VerdictTransient},
	"-2":    {class: "a timeout", verdict: VerdictTransient, timeout: true},
	"40613": {class: "the database is not available (Azure SQL) — retryable", verdict: VerdictTransient},
	"40501": {class: "the service is busy (Azure SQL) — retryable, with more wait", verdict: VerdictTransient, wait: true},
	"4060":  {class: "cannot open the database", verdict: VerdictTransient},
}

// grpcCodes judge a gRPC status (grpc/grpc doc/statuscodes.md; keyed by
// the lowercased name without underscores).
var grpcCodes = map[string]struct {
	name string
	row
}{
	"unavailable":        {"UNAVAILABLE", row{class: "the service is unavailable: retryable", verdict: VerdictTransient}},
	"deadlineexceeded":   {"DEADLINE_EXCEEDED", row{class: "the deadline expired before the call completed", verdict: VerdictTransient, timeout: true}},
	"resourceexhausted":  {"RESOURCE_EXHAUSTED", row{class: "a quota or rate limit: retryable, with more wait", verdict: VerdictTransient, wait: true}},
	"aborted":            {"ABORTED", row{class: "a concurrency conflict: retryable", verdict: VerdictTransient}},
	"invalidargument":    {"INVALID_ARGUMENT", row{class: "the request's values are invalid whatever the state of the system", verdict: VerdictData}},
	"outofrange":         {"OUT_OF_RANGE", row{class: "a value past the valid range", verdict: VerdictData}},
	"notfound":           {"NOT_FOUND", row{class: "an entity the message names does not exist", verdict: VerdictData, missing: true}},
	"alreadyexists":      {"ALREADY_EXISTS", row{class: "the entity the message creates exists already", verdict: VerdictData}},
	"failedprecondition": {"FAILED_PRECONDITION", row{class: "the system is not in the state the request needs: fix the state, not retry", verdict: VerdictData}},
	"unimplemented":      {"UNIMPLEMENTED", row{class: "the server does not implement the call: the code and the service disagree", verdict: VerdictPoison}},
	"permissiondenied":   {"PERMISSION_DENIED", row{class: whyPermission, verdict: VerdictTransient}},
	"unauthenticated":    {"UNAUTHENTICATED", row{class: whyPermission, verdict: VerdictTransient}},
}

// errnoNames are POSIX errno names (errno.h; Node.js "Common system
// errors") a network call fails with: the dependency, not the message.
var errnoNames = map[string]row{
	"ECONNREFUSED":  {class: "connection refused: nothing listens at the dependency", verdict: VerdictTransient},
	"ECONNRESET":    {class: "connection reset by the peer", verdict: VerdictTransient},
	"ECONNABORTED":  {class: "connection aborted", verdict: VerdictTransient},
	"ETIMEDOUT":     {class: "the connection or call timed out", verdict: VerdictTransient, timeout: true},
	"EHOSTUNREACH":  {class: "no route to the dependency's host", verdict: VerdictTransient},
	"ENETUNREACH":   {class: "the network is unreachable", verdict: VerdictTransient},
	"EPIPE":         {class: "broken pipe: the peer closed the connection", verdict: VerdictTransient},
	"EAI_AGAIN":     {class: "a DNS lookup failed for now", verdict: VerdictTransient},
	"ENOTFOUND":     {class: "the dependency's name did not resolve", verdict: VerdictTransient},
	"EADDRNOTAVAIL": {class: "no local address left for a connection", verdict: VerdictTransient},
	"EMFILE":        {class: "too many open files in the consumer", verdict: VerdictTransient},
}

// linuxErrno maps Linux errno numbers (asm-generic/errno.h; Python prints
// "[Errno 111] Connection refused") and getaddrinfo's EAI_AGAIN (-3).
var linuxErrno = map[string]string{
	"111": "ECONNREFUSED", "104": "ECONNRESET", "103": "ECONNABORTED", "110": "ETIMEDOUT", "113": "EHOSTUNREACH",
	"101": "ENETUNREACH", "32": "EPIPE", "-3": "EAI_AGAIN", "99": "EADDRNOTAVAIL", "24": "EMFILE",
}

// lambdaErrorTypes are Lambda's own errorType values (Lambda developer
// guide, "Troubleshoot invocation issues" and the runtime API's errors).
var lambdaErrorTypes = map[string]row{
	"Sandbox.Timedout":            {class: "the function ran into its configured timeout", verdict: VerdictTransient, timeout: true},
	"Runtime.OutOfMemory":         {class: "the function ran out of its configured memory", verdict: VerdictTransient, limit: true},
	"Runtime.ImportModuleError":   {class: "the function's code cannot be loaded: no message can be processed until it is fixed", verdict: VerdictPoison},
	"Runtime.HandlerNotFound":     {class: "the function's handler does not exist: no message can be processed until it is fixed", verdict: VerdictPoison},
	"Runtime.UserCodeSyntaxError": {class: "the function's code does not compile: no message can be processed until it is fixed", verdict: VerdictPoison},
	"Runtime.InvalidEntrypoint":   {class: "the function's entrypoint is wrong: no message can be processed until it is fixed", verdict: VerdictPoison},
	"Runtime.MarshalError":        {class: "the function's response cannot be serialized", verdict: VerdictPoison},
	"Runtime.UnmarshalError":      {class: "the event cannot be deserialized into the handler's type", verdict: VerdictPoison},
}

const (
	whyDecode  = "the consumer cannot decode the message: the code and the message's format disagree"
	whyNull    = "the code reads a value the message does not have"
	whyTimeout = "a call timed out"
	whyConnect = "a dependency could not be reached"
	whyRow     = "a row the message names does not exist"
	whyRule    = "the data breaks a rule of the database"
	whyBreaker = "a circuit breaker stopped calls to a dependency that was failing"
)

// exceptionTypes are the exception type names of the common runtimes'
// standard libraries and most used libraries (Python, Java, .NET, Node,
// Go, Ruby — each documented in its own reference), by the name as
// printed or its last component.
var exceptionTypes = map[string]row{
	// decoding: poison
	"JSONDecodeError":                         {class: "Python json: " + whyDecode, verdict: VerdictPoison},
	"UnicodeDecodeError":                      {class: "Python: the bytes are not the encoding the code expects", verdict: VerdictPoison},
	"KeyError":                                {class: "Python/Ruby: " + whyNull, verdict: VerdictPoison},
	"TypeError":                               {class: "Python/Node/Ruby: a value of the message has another type than the code expects", verdict: VerdictPoison},
	"AttributeError":                          {class: "Python: " + whyNull, verdict: VerdictPoison},
	"JsonParseException":                      {class: "Java Jackson: " + whyDecode, verdict: VerdictPoison},
	"JsonMappingException":                    {class: "Java Jackson: " + whyDecode, verdict: VerdictPoison},
	"MismatchedInputException":                {class: "Java Jackson: " + whyDecode, verdict: VerdictPoison},
	"UnrecognizedPropertyException":           {class: "Java Jackson: the message has a field the code does not know", verdict: VerdictPoison},
	"InvalidFormatException":                  {class: "Java Jackson: " + whyDecode, verdict: VerdictPoison},
	"InvalidDefinitionException":              {class: "Java Jackson: " + whyDecode, verdict: VerdictPoison},
	"JsonSyntaxException":                     {class: "Java Gson: " + whyDecode, verdict: VerdictPoison},
	"HttpMessageNotReadableException":         {class: "Java Spring: " + whyDecode, verdict: VerdictPoison},
	"MessageConversionException":              {class: "Java Spring: " + whyDecode, verdict: VerdictPoison},
	"NullPointerException":                    {class: "Java: " + whyNull, verdict: VerdictPoison},
	"ClassCastException":                      {class: "Java: a value of the message has another type than the code expects", verdict: VerdictPoison},
	"NumberFormatException":                   {class: "Java: a value of the message is not the number the code expects", verdict: VerdictPoison},
	"DateTimeParseException":                  {class: "Java: a value of the message is not the date the code expects", verdict: VerdictPoison},
	"JsonException":                           {class: ".NET System.Text.Json: " + whyDecode, verdict: VerdictPoison},
	"JsonReaderException":                     {class: ".NET Newtonsoft.Json: " + whyDecode, verdict: VerdictPoison},
	"JsonSerializationException":              {class: ".NET Newtonsoft.Json: " + whyDecode, verdict: VerdictPoison},
	"NullReferenceException":                  {class: ".NET: " + whyNull, verdict: VerdictPoison},
	"InvalidCastException":                    {class: ".NET: a value of the message has another type than the code expects", verdict: VerdictPoison},
	"FormatException":                         {class: ".NET: a value of the message is not in the format the code expects", verdict: VerdictPoison},
	"ReferenceError":                          {class: "Node: the code reads a name that does not exist", verdict: VerdictPoison},
	"SyntaxError":                             {class: "Node/Python: " + whyDecode, verdict: VerdictPoison},
	"json.SyntaxError":                        {class: "Go encoding/json: " + whyDecode, verdict: VerdictPoison},
	"json.UnmarshalTypeError":                 {class: "Go encoding/json: a value of the message has another type than the code expects", verdict: VerdictPoison},
	"UnmarshalTypeError":                      {class: "Go encoding/json: a value of the message has another type than the code expects", verdict: VerdictPoison},
	"JSON::ParserError":                       {class: "Ruby json: " + whyDecode, verdict: VerdictPoison},
	"ValueInstantiationException":             {class: "Java Jackson: " + whyDecode, verdict: VerdictPoison},
	"BadSqlGrammarException":                  {class: "Java Spring: the code's SQL and the schema disagree", verdict: VerdictPoison},
	"SQLGrammarException":                     {class: "Java Hibernate: the code's SQL and the schema disagree", verdict: VerdictPoison},
	"InvalidDataAccessResourceUsageException": {class: "Java Spring: the code's SQL and the schema disagree", verdict: VerdictPoison},
	"ArgumentNullException":                   {class: ".NET: " + whyNull, verdict: VerdictPoison},
	"NoMethodError":                           {class: "Ruby: " + whyNull, verdict: VerdictPoison},
	// data
	"IntegrityError":                  {class: "Python DB-API: " + whyRule, verdict: VerdictData},
	"DoesNotExist":                    {class: "Python Django: " + whyRow, verdict: VerdictData, missing: true},
	"ObjectDoesNotExist":              {class: "Python Django: " + whyRow, verdict: VerdictData, missing: true},
	"DataIntegrityViolationException": {class: "Java Spring: " + whyRule, verdict: VerdictData},
	"DuplicateKeyException":           {class: "Java Spring: the row exists already", verdict: VerdictData},
	"EmptyResultDataAccessException":  {class: "Java Spring: " + whyRow, verdict: VerdictData, missing: true},
	"EntityNotFoundException":         {class: "Java JPA: " + whyRow, verdict: VerdictData, missing: true},
	"ActiveRecord::RecordNotFound":    {class: "Ruby ActiveRecord: " + whyRow, verdict: VerdictData, missing: true},
	"ActiveRecord::RecordInvalid":     {class: "Ruby ActiveRecord: the record fails its validations", verdict: VerdictData},
	"ActiveRecord::RecordNotUnique":   {class: "Ruby ActiveRecord: the row exists already", verdict: VerdictData},
	"ConstraintViolationException":    {class: "Java Hibernate / Bean Validation: " + whyRule, verdict: VerdictData},
	"RecordNotFound":                  {class: "Ruby ActiveRecord: " + whyRow, verdict: VerdictData, missing: true},
	// transient
	"TimeoutError":                         {class: "Python/Node: " + whyTimeout, verdict: VerdictTransient, timeout: true},
	"ReadTimeout":                          {class: "Python requests / Ruby Net: " + whyTimeout, verdict: VerdictTransient, timeout: true},
	"ConnectTimeout":                       {class: "Python requests: " + whyTimeout, verdict: VerdictTransient, timeout: true},
	"ReadTimeoutError":                     {class: "Python urllib3: " + whyTimeout, verdict: VerdictTransient, timeout: true},
	"OpenTimeout":                          {class: "Ruby Net: " + whyTimeout, verdict: VerdictTransient, timeout: true},
	"Timeout::Error":                       {class: "Ruby: " + whyTimeout, verdict: VerdictTransient, timeout: true},
	"SocketTimeoutException":               {class: "Java: " + whyTimeout, verdict: VerdictTransient, timeout: true},
	"QueryTimeoutException":                {class: "Java Spring: " + whyTimeout, verdict: VerdictTransient, timeout: true},
	"TimeoutException":                     {class: "Java/.NET: " + whyTimeout, verdict: VerdictTransient, timeout: true},
	"TaskCanceledException":                {class: ".NET HttpClient: " + whyTimeout, verdict: VerdictTransient, timeout: true},
	"AbortError":                           {class: "Node: " + whyTimeout + " (aborted)", verdict: VerdictTransient, timeout: true},
	"ConnectionError":                      {class: "Python: " + whyConnect, verdict: VerdictTransient},
	"ConnectionRefusedError":               {class: "Python: " + whyConnect, verdict: VerdictTransient},
	"ConnectionResetError":                 {class: "Python: " + whyConnect, verdict: VerdictTransient},
	"BrokenPipeError":                      {class: "Python: " + whyConnect, verdict: VerdictTransient},
	"ConnectException":                     {class: "Java: " + whyConnect, verdict: VerdictTransient},
	"UnknownHostException":                 {class: "Java: " + whyConnect, verdict: VerdictTransient},
	"SQLTransientConnectionException":      {class: "Java JDBC: " + whyConnect, verdict: VerdictTransient},
	"SQLTransientException":                {class: "Java JDBC: a transient database failure", verdict: VerdictTransient},
	"CannotAcquireLockException":           {class: "Java Spring: a lock was not granted", verdict: VerdictTransient},
	"TransientDataAccessException":         {class: "Java Spring: a transient database failure", verdict: VerdictTransient},
	"DeadlockLoserDataAccessException":     {class: "Java Spring: a deadlock victim — retryable", verdict: VerdictTransient},
	"PessimisticLockingFailureException":   {class: "Java Spring: a lock was not granted", verdict: VerdictTransient},
	"CannotGetJdbcConnectionException":     {class: "Java Spring: " + whyConnect, verdict: VerdictTransient},
	"DataAccessResourceFailureException":   {class: "Java Spring: " + whyConnect, verdict: VerdictTransient},
	"TransientDataAccessResourceException": {class: "Java Spring: a transient database failure", verdict: VerdictTransient},
	"JDBCConnectionException":              {class: "Java Hibernate: " + whyConnect, verdict: VerdictTransient},
	"LockAcquisitionException":             {class: "Java Hibernate: a lock was not granted", verdict: VerdictTransient},
	"ResourceAccessException":              {class: "Java Spring: " + whyConnect, verdict: VerdictTransient},
	"SocketException":                      {class: ".NET/Java: " + whyConnect, verdict: VerdictTransient},
	"CallNotPermittedException":            {class: "Java Resilience4j: " + whyBreaker, verdict: VerdictTransient},
	"BrokenCircuitException":               {class: ".NET Polly: " + whyBreaker, verdict: VerdictTransient},
	"CircuitBreakerError":                  {class: "Python pybreaker: " + whyBreaker, verdict: VerdictTransient},
	"OpenCircuitException":                 {class: "Go/Java circuit breaker: " + whyBreaker, verdict: VerdictTransient},
	"TimeoutRejectedException":             {class: ".NET Polly: " + whyTimeout, verdict: VerdictTransient, timeout: true},
	"OutOfMemoryError":                     {class: "Java: the process ran out of memory", verdict: VerdictTransient, limit: true},
	"MemoryError":                          {class: "Python: the process ran out of memory", verdict: VerdictTransient, limit: true},
	"OutOfMemoryException":                 {class: ".NET: the process ran out of memory", verdict: VerdictTransient, limit: true},
	"ReadOnlyError":                        {class: "Python redis: the node is a read-only replica (a failover): retryable", verdict: VerdictTransient},
	"MongoServerSelectionError":            {class: "Node MongoDB driver: " + whyConnect, verdict: VerdictTransient},
	"ServerSelectionTimeoutError":          {class: "Python pymongo: " + whyConnect, verdict: VerdictTransient},
	"MongoNetworkError":                    {class: "Node MongoDB driver: " + whyConnect, verdict: VerdictTransient},
	"AutoReconnect":                        {class: "Python pymongo: " + whyConnect, verdict: VerdictTransient},
	"MongoSocketReadException":             {class: "Java MongoDB driver: " + whyConnect, verdict: VerdictTransient},
	"MongoTimeoutException":                {class: "Java MongoDB driver: " + whyConnect, verdict: VerdictTransient},
	"MongoNetworkTimeoutError":             {class: "Node MongoDB driver: " + whyTimeout, verdict: VerdictTransient, timeout: true},
	"NetworkTimeout":                       {class: "Python pymongo: " + whyTimeout, verdict: VerdictTransient, timeout: true},
	"ConnectionFailed":                     {class: "Ruby Faraday: " + whyConnect, verdict: VerdictTransient},
	"CannotConnectError":                   {class: "Ruby Redis: " + whyConnect, verdict: VerdictTransient},
}

// runtimeMessages are the messages runtimes write without their type's
// name: Go's encoding/json (*json.SyntaxError, *json.UnmarshalTypeError),
// Python's json (JSONDecodeError's messages), Node's JSON.parse
// (SyntaxError) and fetch, Jackson's token errors, Go's runtime panics.
var runtimeMessages = []namedMessage{
	{"*json.SyntaxError", regexp.MustCompile(`invalid character '.{1,8}' (looking for beginning of|after|in) |unexpected end of JSON input`), row{class: "Go encoding/json: " + whyDecode, verdict: VerdictPoison}},
	{"*json.UnmarshalTypeError", regexp.MustCompile(`cannot unmarshal \w+ into Go (struct field|value of type)`), row{class: "Go encoding/json: a value of the message has another type than the code expects", verdict: VerdictPoison}},
	{"JSONDecodeError", regexp.MustCompile(`Expecting (value|property name enclosed in double quotes|',' delimiter|':' delimiter): line \d+ column \d+|Unterminated string starting at: line \d+|Extra data: line \d+ column \d+`), row{class: "Python json: " + whyDecode, verdict: VerdictPoison}},
	{"SyntaxError", regexp.MustCompile(`Unexpected (token .{1,12}|end of JSON input|non-whitespace character after JSON)( in JSON)?( at position \d+)?|is not valid JSON`), row{class: "Node JSON.parse: " + whyDecode, verdict: VerdictPoison}},
	{"JsonParseException", regexp.MustCompile(`Unrecognized token '[^']*': was expecting|Unexpected character \('.{1,4}' \(code \d+\)\)`), row{class: "Java Jackson: " + whyDecode, verdict: VerdictPoison}},
	{"runtime error", regexp.MustCompile(`invalid memory address or nil pointer dereference|index out of range \[\d+\]`), row{class: "Go runtime: " + whyNull, verdict: VerdictPoison}},
	{"IllegalArgumentException: No enum constant", regexp.MustCompile(`No enum constant [\w.$]+`), row{class: "Java Enum.valueOf: a value of the message is not one the code knows — the code and the message's format disagree", verdict: VerdictPoison}},
	{"UserFault: JSON parsing", regexp.MustCompile(`An error occurred during JSON parsing`), row{class: "Java Lambda runtime: the event cannot be deserialized into the handler's type", verdict: VerdictPoison}},
	{"*strconv.NumError", regexp.MustCompile(`strconv\.Parse\w+: parsing "[^"\n]{0,64}": invalid syntax`), row{class: "Go strconv: a value of the message is not the number the code expects", verdict: VerdictPoison}},
	{"ValueError: invalid literal", regexp.MustCompile(`invalid literal for int\(\) with base \d+|could not convert string to float: `), row{class: "Python: a value of the message is not the number the code expects", verdict: VerdictPoison}},
	{"runtime: out of memory", regexp.MustCompile(`fatal error: runtime: out of memory|JavaScript heap out of memory`), row{class: "Go/Node: the process ran out of memory", verdict: VerdictTransient, limit: true}},
	{"Breaker is open", regexp.MustCompile(`\bBreaker is open\b|\bEOPENBREAKER\b|\bshort-circuited and (no )?fallback`), row{class: "Node opossum / Hystrix: " + whyBreaker, verdict: VerdictTransient}},
	{"context.DeadlineExceeded", regexp.MustCompile(`context deadline exceeded`), row{class: "Go: " + whyTimeout, verdict: VerdictTransient, timeout: true}},
	{"TypeError: fetch failed", regexp.MustCompile(`TypeError: fetch failed`), row{class: "Node fetch: " + whyConnect, verdict: VerdictTransient}},
}

// httpStatuses judge the statuses whose meaning differs from their class's
// (RFC 9110 section 15; 429 RFC 6585).
var httpStatuses = map[int]row{
	408: {class: "Request Timeout: retryable", verdict: VerdictTransient, timeout: true},
	429: {class: "Too Many Requests: retryable, with more wait", verdict: VerdictTransient, wait: true},
	409: {class: "Conflict: the target's state conflicts with the request", verdict: VerdictData},
	412: {class: "Precondition Failed: the target's state is not the one the request expects", verdict: VerdictData},
	404: {class: "Not Found: what the message names does not exist", verdict: VerdictData, missing: true},
	410: {class: "Gone: what the message names was removed", verdict: VerdictData, missing: true},
	401: {class: "Unauthorized — " + whyPermission, verdict: VerdictTransient},
	403: {class: "Forbidden — " + whyPermission, verdict: VerdictTransient},
	413: {class: "Content Too Large: the request built from the message is over the server's limit", verdict: VerdictPoison},
	415: {class: "Unsupported Media Type: the code and the server disagree on the format", verdict: VerdictPoison},
	501: {class: "Not Implemented: the server does not support the call", verdict: VerdictPoison},
}

// httpClasses judge the other statuses by class.
var httpClasses = map[int]row{
	4: {class: "class 4xx: the server refused this request — the message's values", verdict: VerdictData},
	5: {class: "class 5xx: the server failed — retryable", verdict: VerdictTransient},
}
