package cmd

import "github.com/rogpeppe/go-internal/testscript"

// scriptCmds are all the custom commands of the testscript scripts, in one
// map (chezmoi's internal/cmd/main_test.go is the model): a name is unique
// because the compiler rejects a duplicate key, and a reader finds every
// command here, grouped by the file that implements it. The programs a
// script runs (mfdlq, consume) are not commands: scripts run them with an
// explicit exec (TestMain registers them).
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	// script_test.go
	"exitcode":      cmdExitcode,
	"sqs-pair":      cmdSQSPair,
	"sqs-queue":     cmdSQSQueue,
	"sqs-send":      cmdSQSSend,
	"sqs-depth":     cmdSQSDepth,
	"samples-match": cmdSamplesMatch,
	"scrub":         cmdScrub,
	// browse_script_test.go
	"pty-dialogue": cmdPtyDialogue,
	// changes_script_test.go
	"standins":       cmdStandins,
	"trail-seed":     cmdTrailSeed,
	"trail-noise":    cmdTrailNoise,
	"trail-throttle": cmdTrailThrottle,
	"trail-calls":    cmdTrailCalls,
	"alarm-seed":     cmdAlarmSeed,
	"cw-lambda":      cmdCWLambda,
	"unq":            cmdUnq,
	"trail-deny":     cmdTrailDeny,
	"trail-rest":     cmdTrailRest,
	"env-long":       cmdEnvLong,
	// classify_test.go
	"classify-fixture": cmdClassifyFixture,
	// deploy_script_test.go
	"lambda-update": cmdLambdaUpdate,
	// export_script_test.go
	"gen-bodies":     cmdGenBodies,
	"s3-bucket":      cmdS3Bucket,
	"export-match":   cmdExportMatch,
	"queue-match":    cmdQueueMatch,
	"sqs-atleast":    cmdSQSAtLeast,
	"inflight-limit": cmdInflightLimit,
	"export-part":    cmdExportPart,
	"s3-rm":          cmdS3Rm,
	// fleet_script_test.go
	"account":      cmdAccount,
	"org-new":      cmdOrgNew,
	"org-close":    cmdOrgClose,
	"fleet-pair":   cmdFleetPair,
	"as":           cmdAs,
	"sts-deny":     cmdSTSDeny,
	"tag-raw":      cmdTagRaw,
	"profiles":     cmdProfiles,
	"fleet-queue":  cmdFleetQueue,
	"fleet-delete": cmdFleetDelete,
	// notify_script_test.go
	"sns-subscribed":   cmdSNSSubscribed,
	"sqs-bodies":       cmdSQSBodies,
	"webhook":          cmdWebhook,
	"webhook-redirect": cmdWebhookRedirect,
	// hostile_script_test.go
	"no-control": cmdNoControl,
	// lease_garbage_script_test.go
	"s3-put":  cmdS3Put,
	"s3-body": cmdS3Body,
	"env-odd": cmdEnvOdd,
	// lease_script_test.go
	"sqs-lease":    cmdSQSLease,
	"one-incident": cmdOneIncident,
	// logs_test.go
	"sqs-send-id": cmdSQSSendID,
	"logs-put":    cmdLogsPut,
	// ls_script_test.go
	"sqs-pairs": cmdSQSPairs,
	"clock":     cmdClock,
	"cw-age":    cmdCWAge,
	"ls-order":  cmdLsOrder,
	// payloads_script_test.go
	"sqs-offload": cmdSQSOffload,
	"s3-count":    cmdS3Count,
	// redrive_safety_script_test.go
	"lambda-pause":  cmdLambdaPause,
	"movetasks":     cmdMoveTasks,
	"sqs-move-task": cmdSQSMoveTask,
	"s3-lease":      cmdS3Lease,
	// redrive_shared_test.go
	"shared-dlq": cmdSharedDLQ,
	// redrive_target_script_test.go
	"sns-topic":    cmdSNSTopic,
	"sns-publish":  cmdSNSPublish,
	"events-rule":  cmdEventsRule,
	"events-put":   cmdEventsPut,
	"sqs-move":     cmdSQSMove,
	"arrivals":     cmdArrivals,
	"lambda-async": cmdLambdaAsync,
	// redrive_subscription_script_test.go
	"sns-sub": cmdSNSSub,
	// redrive_test.go
	"sqs-holds": cmdSQSHolds,
	// stamp_script_test.go
	"sqs-attrs": cmdSQSAttrs,
	// redrive_window_script_test.go
	"idem-seed":     cmdIdemSeed,
	"consumer-seed": cmdConsumerSeed,
	// sources_script_test.go
	"dlqsource":       cmdDLQSource,
	"sqs-shared":      cmdSQSShared,
	"sqs-dead-letter": cmdSQSDeadLetter,
	// verify_live_script_test.go
	"live-pair":          cmdLivePair,
	"journal-move-dests": cmdJournalMoveDests,
	"dests-verdict":      cmdDestsVerdict,
	// verify_script_test.go
	"journal-move":  cmdJournalMove,
	"consume-later": cmdConsumeLater,
	"journal-ids":   cmdJournalIDs,
	// vitals_script_test.go
	"cw-series":      cmdCWSeries,
	"cw-point":       cmdCWPoint,
	"lambda-mapping": cmdLambdaMapping,
	"lambda-state":   cmdLambdaState,
	"cw-alarm":       cmdCWAlarm,
	// pollers_script_test.go
	"lambda-pollers":     cmdLambdaPollers,
	"lambda-pollers-are": cmdLambdaPollersAre,
	// output_script_test.go
	"max-width": cmdMaxWidth,
	// whenok_script_test.go
	"alarm-standin": cmdAlarmStandin,
	"alarm-put":     cmdAlarmPut,
	"alarm-set":     cmdAlarmSet,
	"composite-put": cmdCompositePut,
	"alarm-silent":  cmdAlarmSilent,
	"alarm-datum":   cmdAlarmDatum,
	"file-wait":     cmdFileWait,
	"lease-says":    cmdLeaseSays,
	"sqs-steady":    cmdSQSSteady,
	// verify_window_script_test.go
	"journal-target": cmdJournalTarget,

	// incident_s3_script_test.go
	"s3-get":    cmdS3Get,
	"s3-append": cmdS3Append,
	"mode":      cmdMode,

	"canary-pair": cmdCanaryPair,
	"sqs-fill":    cmdSQSFill,
	"consumer":    cmdConsumer,
	// triage_script_test.go
	"max-lines": cmdMaxLines,
	"json-has":  cmdJSONHas,
}

// negationHandled are the commands that read `!` themselves; for any
// other, rejectNegation makes `! cmd` an error.
var negationHandled = []string{"exitcode", "sqs-depth", "sqs-send-id", "logs-put", "sqs-lease", "s3-lease"}
