#!/usr/bin/env bash
# bench/run.sh — `make bench`: the Go benchmarks of every package, then the
# redrive measurements (docs/redrive.md lists the figures and what they mean):
#   rate        340 messages at --rate 10 against moto (runbook: 34 s ± 1 s)
#   throughput  5,000 messages at --rate max vs a bare batch loop, fauxqs
#   crash       30 SIGKILLs at random moments + reruns against moto
#   faults      2,000 messages through 10% injected faults against moto
#   latency     5,000 messages through fauxqs + 20 ms per call: mfdlq's
#               defaults, --workers 1/8/32, bare loops of 1 and 32 workers
#   latency0    the same at 0 ms, against the bare loop at the concurrency
#               mfdlq's defaults reached
#   ratelatency 10,000 messages at --rate 1000 through fauxqs + 20 ms
#   memory      100,000 messages at --rate max: peak RSS, journal, rerun
#   scale       100,000 then 1,000,000 messages at --rate max, each beside the
#               bare 32-worker loop on a queue as deep, fauxqs: throughput,
#               peak RSS, incident directory, rerun RSS (SCALE="100000 1000000")
#   crashscale  one 200,000-message move SIGKILLed 30 times, each kill
#               followed by a rerun, fauxqs: lost, duplicates, journal size
#   export      mfdlq export --delete of 1,000,000 to .jsonl.gz beside the
#               bare receive/write/delete loop, fauxqs: rate, peak RSS
#   ls          mfdlq ls over 250, 500 and 1,000 queues against moto: calls
#               per operation and time (docs/ls.md)
# Pick some with BENCH="rate crash"; the default runs all but memory, scale,
# crashscale and export (each takes many minutes). BIN runs another binary.
# LATENCY (20ms) and ROUNDS (3) change the latency benchmarks.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${BENCH:-"go rate throughput crash faults latency latency0 ratelatency ls"}
bin=${BIN:-bin/mfdlq}
[[ -n ${BIN:-} ]] || go build -o bin/mfdlq .
for b in $what; do
  echo "== $b"
  case $b in
    go) go test -run '^$' -bench . ./... ;;
    rate) scripts/with-localaws.sh go run ./bench/cmd/movebench -mode rate -n 340 -rate 10 ;;
    throughput) bench/with-fauxqs.sh go run ./bench/cmd/movebench -mode throughput -n 5000 -workers 2 -rounds 9 ;;
    crash) scripts/with-localaws.sh go run ./bench/cmd/crashkill -runs "${CRASH_RUNS:-30}" -messages 200 -workers "${CRASH_WORKERS:-0}" ;;
    faults) scripts/with-localaws.sh go run ./bench/cmd/movebench -mode faults -n 2000 -faults 0.10 ;;
    latency) bench/with-fauxqs.sh go run ./bench/cmd/movebench -mode latency -latency "${LATENCY:-20ms}" -n 5000 -rounds "${ROUNDS:-3}" ;;
    latency0) bench/with-fauxqs.sh go run ./bench/cmd/movebench -mode latency -latency 0 -n 5000 -rounds "${ROUNDS:-3}" -contenders default,w32,bare@peak,bare32 ;;
    ratelatency) bench/with-fauxqs.sh go run ./bench/cmd/movebench -mode rate -latency "${LATENCY:-20ms}" -n 10000 -rate 1000 ;;
    memory) bench/with-fauxqs.sh go run ./bench/cmd/movebench -bin "$bin" -mode memory -n 100000 ;;
    scale) for n in ${SCALE:-100000 1000000}; do bench/with-fauxqs.sh go run ./bench/cmd/movebench -bin "$bin" -mode scale -n "$n"; done ;;
    crashscale) bench/with-fauxqs.sh go run ./bench/cmd/crashkill -bin "$bin" -scale -runs "${CRASH_RUNS:-30}" -messages 200000 -kill-within 2s ;;
    export) bench/with-fauxqs.sh go run ./bench/cmd/movebench -bin "$bin" -mode export -n "${EXPORT_N:-1000000}" ;;
    ls) scripts/with-localaws.sh go run ./bench/cmd/lsbench -pairs 125,250,500 -rounds 3 ;;
    *) echo "bench/run.sh: unknown benchmark $b" >&2; exit 2 ;;
  esac
done
