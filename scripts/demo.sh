#!/usr/bin/env bash
# demo.sh [SCENARIO] — the main job on a local AWS: seed an incident, then
# walk it with mfdlq. Run through scripts/with-localaws.sh (make demo).
set -euo pipefail
cd "$(dirname "$0")/.."
scenario=${1:-deploy}
mfdlq=${MFDLQ:-bin/mfdlq}
work=$(mktemp -d -t mfdlq-demo.XXXXXX)
export MFDLQ_INCIDENT="$work/incident"

go run ./internal/demo seed "$scenario"
echo
echo "\$ mfdlq inspect --queue orders-dlq --max 10"
"$mfdlq" inspect --queue orders-dlq --max 10
echo
echo "incident directory: $MFDLQ_INCIDENT"
