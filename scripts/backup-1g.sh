#!/usr/bin/env bash
# Backup of a 1 GiB ledger against cp(1) of the same file (README, "Performance"): builds
# the ledger (random 2 MiB pastes), then copies it 3 times each way, alternately.
# Needs about 3 GiB free in the temporary folder.
set -euo pipefail
cd "$(dirname "$0")/.."
go test ./ledger -run '^$' -bench 'Backup1GB' -benchtime "${1:-3}x" -timeout 60m
