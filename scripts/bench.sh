#!/usr/bin/env bash
# Runs every benchmark once, with the settings the README's figures were taken with, and
# writes the raw output to bench.out (or the file named as $1). Takes a few minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-bench.out}"
{
  echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(go version) $(nproc) cores"
  go test ./ledger   -run '^$' -bench 'RecordBatch100|RecordOne|Audit' -benchtime 20x
  go test ./ledger   -run '^$' -bench 'RecordCheck' -benchtime 300x
  go test ./ledger   -run '^$' -bench 'Proofs1M' -benchtime 2000x
  go test ./ledger   -run '^$' -bench 'DiskPerCheck' -benchtime 1x
  go test ./ledger   -run '^$' -bench 'Import2000Claims' -benchtime 5x -benchmem
  go test ./evidence -run '^$' -bench 'Parse2000Claims' -benchtime 10x -benchmem
  go test ./fetch    -run '^$' -bench . -benchtime 5x -benchmem
  go test ./pdf      -run '^$' -bench . -benchtime 5x -benchmem
  go test ./verify   -run '^$' -bench 'Match' -benchmem
  go test ./verify   -run '^$' -bench 'Check1000Citations' -benchtime 2x -benchmem
  go test ./verify/model -run '^$' -bench 'ModelTier' -benchtime 10x
  go test ./web      -run '^$' -bench 'ClaimsFirstPage100k' -benchtime 20x
  go test ./cmd/ledger -run '^$' -bench 'MCPCheck25' -benchtime 10x
} 2>&1 | tee "$out"
