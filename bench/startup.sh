#!/bin/sh
# The hook's start-up cost, side by side with the floor (a Go program that
# only decodes the event) and the anchor guards, in one run. Ratios hold
# across runs; absolute times drift with the machine.
#
#   bench/startup.sh              # a table for the terminal
#   bench/startup.sh -markdown    # the README's table
#   bench/startup.sh -safety-net DIR/node_modules/.bin/cc-safety-net
set -eu
cd "$(dirname "$0")/.."
if [ -z "${SAFETY_NET:-}" ] && command -v cc-safety-net >/dev/null 2>&1; then
	set -- -safety-net "$(command -v cc-safety-net)" "$@"
fi
exec go run ./bench/hookbench "$@"
