#!/usr/bin/env bash
# with-localaws.sh CMD [ARGS...] — runs CMD with a local AWS (moto's server,
# through internal/localaws/moto_server.py, which takes out the CPU moto
# wastes on every SQS receive and EventBridge put) on a free loopback port,
# and stops the server by its PID when CMD ends.
#
# CMD sees MFDLQ_TEST_ENDPOINT (for the tests), AWS_ENDPOINT_URL, AWS_REGION
# and dummy credentials, so neither the tests nor mfdlq can reach a real
# account. Set MFDLQ_TEST_ENDPOINT yourself to use a server already running.
set -euo pipefail

moto_version=5.2.1

if [[ -n "${MFDLQ_TEST_ENDPOINT:-}" ]]; then
  endpoint=$MFDLQ_TEST_ENDPOINT
else
  if ! python3 -c 'import moto.server' >/dev/null 2>&1; then
    echo "with-localaws: moto not found: pip install 'moto[server]==$moto_version'" >&2
    exit 1
  fi
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  log=$(mktemp -t mfdlq-moto.XXXXXX.log)
  python3 "$(dirname "$0")/../internal/localaws/moto_server.py" -H 127.0.0.1 -p "$port" >"$log" 2>&1 &
  pid=$!
  trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; rm -f "$log"' EXIT
  endpoint="http://127.0.0.1:$port"
  for _ in $(seq 1 150); do
    if curl -fsS -o /dev/null "$endpoint/moto-api/" 2>/dev/null; then break; fi
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "with-localaws: the moto server exited:" >&2; cat "$log" >&2; exit 1
    fi
    sleep 0.2
  done
  curl -fsS -o /dev/null "$endpoint/moto-api/" || { echo "with-localaws: the moto server did not answer on $endpoint" >&2; exit 1; }
fi

export MFDLQ_TEST_ENDPOINT=$endpoint
export AWS_ENDPOINT_URL=$endpoint
export AWS_REGION=us-east-1
export AWS_ACCESS_KEY_ID=test
export AWS_SECRET_ACCESS_KEY=test
export AWS_EC2_METADATA_DISABLED=true
unset AWS_PROFILE AWS_SESSION_TOKEN
"$@"
