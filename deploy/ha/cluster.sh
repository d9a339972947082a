#!/usr/bin/env bash
# The whole high-availability setup on one machine, for tests: etcd, two Patroni-managed PostgreSQL
# nodes (primary + synchronous standby), HAProxy (PostgreSQL on the primary, HTTP over the nodes) and
# NETLEDGER_NODES NetLedger nodes (`npm start`). Ports are apart from a PostgreSQL on 5432, which is
# never touched; everything lives under HA_DIR (a temporary folder).
#   deploy/ha/cluster.sh up     # HA_DIR must be set; prints the HTTP and database URLs
#   deploy/ha/cluster.sh down   # stops every process it started, by the ids it recorded
# Needs root (PostgreSQL runs as the `postgres` user) and Debian's patroni, etcd-server, haproxy.
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${HA_DIR:?set HA_DIR to an empty temporary folder}"
ETCD_PORT=${ETCD_PORT:-23790} ETCD_PEER_PORT=${ETCD_PEER_PORT:-23800}
PG1_PORT=${PG1_PORT:-55431} PG2_PORT=${PG2_PORT:-55432} REST1_PORT=${REST1_PORT:-18008} REST2_PORT=${REST2_PORT:-18009}
DB_PORT=${DB_PORT:-55430} DB_READ_PORT=${DB_READ_PORT:-55429} HTTP_PORT=${HTTP_PORT:-18080} NODE_BASE_PORT=${NODE_BASE_PORT:-18081}
NETLEDGER_NODES=${NETLEDGER_NODES:-2}
BIN_DIR=${BIN_DIR:-$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)}
export DATABASE_URL="postgres://postgres:postgres@127.0.0.1:$DB_PORT/netledger"
# READ_SCALING=1: the nodes read from the standby through HAProxy's replica port (DATABASE_READ_URL).
READ_URL=$([ "${READ_SCALING:-0}" = 1 ] && echo "postgres://postgres:postgres@127.0.0.1:$DB_READ_PORT/netledger" || true)
NODE=node_modules/.bin/node

# start NAME COMMAND...: runs the command in a session of its own, its id in HA_DIR/pids/NAME.
start() {
  local name=$1; shift
  setsid bash -c 'echo $$ > "$0"; exec "$@"' "$HA_DIR/pids/$name" "$@" > "$HA_DIR/log/$name.log" 2>&1 < /dev/null &
  for _ in $(seq 50); do [ -s "$HA_DIR/pids/$name" ] && return 0; sleep 0.1; done
}

# stop NAME: SIGKILL to the session recorded for NAME.
stop() {
  local pid
  pid=$(cat "$HA_DIR/pids/$1" 2>/dev/null) || return 0
  kill -9 -- "-$pid" 2>/dev/null || true
  rm -f "$HA_DIR/pids/$1"
}

wait_for() { # wait_for SECONDS COMMAND...
  local limit=$1; shift
  for _ in $(seq $((limit * 4))); do "$@" >/dev/null 2>&1 && return 0; sleep 0.25; done
  echo "cluster: timed out waiting for: $*" >&2; return 1
}

fill() { # fill TEMPLATE: the @…@ values
  sed -e "s|@DATA@|$HA_DIR|g" -e "s|@BIN_DIR@|$BIN_DIR|g" -e "s|@ETCD_PORT@|$ETCD_PORT|g" \
    -e "s|@DB_PORT@|$DB_PORT|g" -e "s|@DB_READ_PORT@|$DB_READ_PORT|g" -e "s|@HTTP_PORT@|$HTTP_PORT|g" -e "s|@PG1_PORT@|$PG1_PORT|g" -e "s|@PG2_PORT@|$PG2_PORT|g" \
    -e "s|@REST1_PORT@|$REST1_PORT|g" -e "s|@REST2_PORT@|$REST2_PORT|g" "$@"
}

# The PostgreSQL node `pg1` or `pg2`: Patroni, which starts and stops its postgres.
patroni_up() {
  local name=$1 pg rest
  [ "$name" = pg1 ] && { pg=$PG1_PORT; rest=$REST1_PORT; } || { pg=$PG2_PORT; rest=$REST2_PORT; }
  fill deploy/ha/patroni.yml.in | sed -e "s|@NAME@|$name|g" -e "s|@PG_PORT@|$pg|g" -e "s|@REST_PORT@|$rest|g" > "$HA_DIR/$name.yml"
  chown postgres "$HA_DIR/$name.yml"
  start "patroni-$name" runuser -u postgres -- patroni "$HA_DIR/$name.yml"
}

# Its postgres: SIGKILL to the postmaster (its backends follow), as when the server crashes.
postgres_kill() {
  local pid
  pid=$(head -n 1 "$HA_DIR/$1/postmaster.pid" 2>/dev/null) || return 0
  kill -9 "$pid" 2>/dev/null || true
}

patroni_down() {
  stop "patroni-$1"
  postgres_kill "$1"
}

node_up() {
  local i=$1
  start "netledger-$i" env PORT=$((NODE_BASE_PORT + i - 1)) HOST=127.0.0.1 DATA_DIR="$HA_DIR/node$i" \
    DATABASE_URL="$DATABASE_URL" DATABASE_READ_URL="$READ_URL" SECRET_KEY=ha-test-secret-key-0123456789abcdef0123 \
    ADMIN_TOKEN=${ADMIN_TOKEN:-0123456789abcdef0123456789abcdef01234567} ADMIN_PASSWORD=ha-admin-password \
    WEB_CONCURRENCY=${WEB_CONCURRENCY:-1} RUN_WORKER=1 LOG_REQUESTS=0 LOG_FORMAT=json \
    WEBHOOK_TIMEOUT=5 WEBHOOK_RETRY_SCHEDULE=1,2,5,10,20,30 \
    $NODE --max-semi-space-size=8 dist/runtime/cli.js start
}

node_down() { stop "netledger-$1"; }

up() {
  mkdir -p "$HA_DIR/pids" "$HA_DIR/log"
  chown postgres "$HA_DIR"
  start etcd etcd --name ha --data-dir "$HA_DIR/etcd" --enable-v2=true \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster "ha=http://127.0.0.1:$ETCD_PEER_PORT"
  wait_for 30 curl -sf "http://127.0.0.1:$ETCD_PORT/health"
  patroni_up pg1
  wait_for 90 curl -sf "http://127.0.0.1:$REST1_PORT/primary"
  patroni_up pg2
  wait_for 120 bash -c "curl -sf http://127.0.0.1:$REST2_PORT/sync"
  local servers="" i
  for i in $(seq "$NETLEDGER_NODES"); do servers+="    server node$i 127.0.0.1:$((NODE_BASE_PORT + i - 1)) check"$'\n'; done
  fill deploy/ha/haproxy.cfg.in | awk -v s="$servers" '{ if ($0 == "@HTTP_SERVERS@") printf "%s", s; else print }' > "$HA_DIR/haproxy.cfg"
  start haproxy haproxy -db -f "$HA_DIR/haproxy.cfg"
  wait_for 30 "$BIN_DIR/pg_isready" -q -h 127.0.0.1 -p "$DB_PORT"
  runuser -u postgres -- psql -h 127.0.0.1 -p "$DB_PORT" -U postgres -qc 'create database netledger' >/dev/null
  [ -f dist/runtime/cli.js ] && [ -z "$(find runtime generated -newer dist/runtime/cli.js -name '*.ts' | head -n 1)" ] || npm run build >/dev/null
  # The first node prepares the database (migrations, the admin); the others then start beside it.
  node_up 1
  wait_for 180 curl -sf "http://127.0.0.1:$NODE_BASE_PORT/readyz"
  for i in $(seq 2 "$NETLEDGER_NODES"); do node_up "$i"; done
  for i in $(seq 2 "$NETLEDGER_NODES"); do wait_for 120 curl -sf "http://127.0.0.1:$((NODE_BASE_PORT + i - 1))/readyz"; done
  wait_for 30 curl -sf "http://127.0.0.1:$HTTP_PORT/readyz"
  echo "cluster up: http://127.0.0.1:$HTTP_PORT/ (database $DATABASE_URL)"
}

down() {
  local name
  for name in $(ls "$HA_DIR/pids" 2>/dev/null | grep '^netledger-'); do stop "$name"; done
  stop haproxy
  patroni_down pg1
  patroni_down pg2
  stop etcd
}

# Functions test-failover.sh calls by name.
case "${1:-}" in
  up) up ;;
  down) down ;;
  patroni_up|patroni_down|postgres_kill|node_up|node_down) "$@" ;;
  *) echo "usage: $0 up|down" >&2; exit 2 ;;
esac
