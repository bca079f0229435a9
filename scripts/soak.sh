#!/usr/bin/env bash
# Soak test (not part of go test): 8 clients paste, check, resolve and audit against a
# `ledger serve` on loopback for 10 minutes, then the audit runs over the API and offline.
# Prints throughput, p50/p99 latency per request kind, the server's peak memory and the
# errors (there must be none); exits 1 otherwise. Usage: scripts/soak.sh [DURATION] [CLIENTS]
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bin
go build -o bin/ledger ./cmd/ledger
go build -o bin/soak ./scripts/soak
exec bin/soak -ledger bin/ledger -duration "${1:-10m}" -clients "${2:-8}"
