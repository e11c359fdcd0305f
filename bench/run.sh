#!/usr/bin/env bash
# bench/run.sh — `make bench`: the Go benchmarks of every package, then the
# redrive measurements (docs/redrive.md lists the figures and what they mean):
#   rate        340 messages at --rate 10 against moto (runbook: 34 s ± 1 s)
#   throughput  5,000 messages at --rate max vs a bare batch loop, fauxqs
#   crash       30 SIGKILLs at random moments + reruns against moto
#   faults      2,000 messages through 10% injected faults against moto
#   ls          mfdlq ls over 250, 500 and 1,000 queues against moto: calls
#               per operation and time (docs/ls.md)
# Pick some with BENCH="rate crash"; the default runs all.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${BENCH:-"go rate throughput crash faults ls"}
go build -o bin/mfdlq .
for b in $what; do
  echo "== $b"
  case $b in
    go) go test -run '^$' -bench . ./... ;;
    rate) scripts/with-localaws.sh go run ./bench/cmd/movebench -mode rate -n 340 -rate 10 ;;
    throughput) bench/with-fauxqs.sh go run ./bench/cmd/movebench -mode throughput -n 5000 -workers 2 -rounds 9 ;;
    crash) scripts/with-localaws.sh go run ./bench/cmd/crashkill -runs "${CRASH_RUNS:-30}" -messages 200 -workers 2 ;;
    faults) scripts/with-localaws.sh go run ./bench/cmd/movebench -mode faults -n 2000 -faults 0.10 ;;
    ls) scripts/with-localaws.sh go run ./bench/cmd/lsbench -pairs 125,250,500 -rounds 3 ;;
    *) echo "bench/run.sh: unknown benchmark $b" >&2; exit 2 ;;
  esac
done
