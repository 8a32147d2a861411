#!/usr/bin/env bash
# The etcd registry backend's publish/read times (bench/rail_etcd) against a
# private etcd started here on free localhost ports with room for large
# transactions; stopped by PID.  Usage (from the source tree, after make):
#   BUILD=build bench/rail_etcd.sh [RAILS DOMAINS]...
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ibfab-bench-etcd.XXXXXX")
ok() { :; }
not_ok() { :; }
diag() { sed 's/^/# /' >&2; }
. "$top/tests/lib.sh"
trap 'stop_etcd; rm -rf "$WORK"' EXIT
start_etcd --max-txn-ops 100000 --max-request-bytes 134217728 --quota-backend-bytes 4294967296 \
	|| { echo "etcd did not start" >&2; exit 1; }
echo "# etcd $(etcd --version | head -1 | awk '{print $3}') on $ETCD_EP, $(nproc) cores"
"$BUILD/bench/rail_etcd" "etcd://$ETCD_EP" "$@"
