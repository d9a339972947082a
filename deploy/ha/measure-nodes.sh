#!/usr/bin/env bash
# One NetLedger node against two on one PostgreSQL, measured (not a CI test). Run from the repository
# root as root, after deploy/ha/test-failover.sh has installed patroni, etcd-server and haproxy:
#   bash deploy/ha/measure-nodes.sh
# It brings up the cluster of deploy/ha/cluster.sh with two nodes (WEB_CONCURRENCY processes each),
# runs test/bench/nodes.ts against node 1 alone and then against the HTTP frontend, prints the table
# and always tears everything down.
set -uo pipefail
cd "$(dirname "$0")/../.."
for tool in patroni etcd haproxy; do command -v $tool >/dev/null || { echo "measure-nodes: $tool is missing (bash deploy/ha/test-failover.sh installs it)" >&2; exit 1; }; done
export HA_DIR
HA_DIR=$(mktemp -d /tmp/netledger-ha.XXXXXX)
export ADMIN_TOKEN=0123456789abcdef0123456789abcdef01234567
export HTTP_PORT=${HTTP_PORT:-18080} NODE_BASE_PORT=${NODE_BASE_PORT:-18081} NETLEDGER_NODES=2
cleanup() { bash deploy/ha/cluster.sh down >/dev/null 2>&1; rm -rf "$HA_DIR"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
bash deploy/ha/cluster.sh up || { tail -n 20 "$HA_DIR"/log/*.log >&2; exit 1; }
HTTP_URL="http://127.0.0.1:$HTTP_PORT" NODE_URL="http://127.0.0.1:$NODE_BASE_PORT" node_modules/.bin/tsx test/bench/nodes.ts
