#!/usr/bin/env bash
# Recording with Litestream embedded (serve --replicate) and run beside the ledger as its own
# process, each against the same ledger without replication in the same run
# (docs/operations.md, "Embedded, not beside the server"). Builds litestream v0.5.18 into a
# temporary folder first.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
GOBIN="$bin" go install github.com/benbjohnson/litestream/cmd/litestream@v0.5.18
LEDGER_BENCH_LITESTREAM="$bin/litestream" go test ./replica -run '^$' -bench 'RecordCheck' -benchtime "${1:-2000}x" -count "${2:-3}"
