#!/usr/bin/env bash
# demo.sh [SCENARIO] — the main job on a local AWS: seed an incident, start
# the (fixed) consumer, and walk the runbook unattended with mfdlq. Run it
# through scripts/with-localaws.sh (make demo), which stops moto afterwards.
#
#   deploy  the Sunday-night deploy: 340 version-2 orders, poison; the fix
#           (a consumer that understands version 2) is recorded, then the
#           redrive at --rate 10, verify and the report
#   outage  a 29-minute payment-gateway outage: transient; redrive, verify,
#           report
#
# Everything it writes goes to a temporary directory, never the checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
scenario=${1:-deploy}
mfdlq=${MFDLQ:-bin/mfdlq}
[[ -x $mfdlq ]] || { echo "demo: $mfdlq not built: run make demo" >&2; exit 1; }
work=$(mktemp -d -t mfdlq-demo.XXXXXX)
export MFDLQ_INCIDENT="$work/incident"

go build -o "$work/demo" ./internal/demo
# CloudTrail's LookupEvents and CloudWatch's DescribeAlarmHistory, which
# moto lacks: the stand-ins, in front of moto for the rest of CloudWatch.
"$work/demo" standins >"$work/standins.env" 2>"$work/standins.log" &
standins=$!
trap 'kill "$standins" 2>/dev/null; wait "$standins" 2>/dev/null' EXIT
for _ in $(seq 1 50); do [[ $(wc -l <"$work/standins.env") -ge 2 ]] && break; sleep 0.1; done
set -a; source "$work/standins.env"; set +a
eval "$("$work/demo" seed "$scenario")"

# The consumer, fixed: it processes what the redrive sends back.
"$work/demo" consume "$scenario" 2>"$work/consumer.log" &
consumer=$!
trap 'kill "$consumer" "$standins" 2>/dev/null; wait "$consumer" "$standins" 2>/dev/null; cat "$work/consumer.log" 2>/dev/null | tail -1' EXIT

args=(runbook --queue "$DLQ" --log-group "$LOG_GROUP" --rate 10 --yes --cause "$CAUSE" --warning "$WARNING")
[[ -n $EXPECT ]] && args+=(--expect "$EXPECT")
[[ -n $FIXED ]] && args+=(--fixed "$FIXED")
echo
echo "\$ mfdlq ${args[*]}"
"$mfdlq" "${args[@]}"

echo
echo "report: $MFDLQ_INCIDENT/report.md"
