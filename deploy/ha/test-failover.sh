#!/usr/bin/env bash
# The failover test (not a CI test: it installs packages and takes a few minutes). Run from the
# repository root as root: `bash deploy/ha/test-failover.sh`. It installs Debian's patroni,
# etcd-server and haproxy when missing (without letting apt start their default services), brings
# the cluster of deploy/ha/cluster.sh up under a temporary folder, puts a steady load of writes with
# webhooks on its HTTP frontend, then:
#   1. kill -9 the PostgreSQL primary's postmaster (Patroni promotes the synchronous standby);
#   2. kill -9 one NetLedger node (its whole process group);
#   3. restart the old primary's node (Patroni and PostgreSQL killed and started again): it rejoins as standby;
# and checks that every acknowledged write is there, that nothing was written that was answered as
# failed, that every create's webhook arrived, and how long writes took to come back. It always tears
# everything down. The last line is
#   failover: acknowledged lost N, phantom N, webhooks lost N, duplicated N, writes back after S s
# and the exit code is 0 only when nothing acknowledged was lost, there is no phantom, no webhook
# was lost, and writes came back within 15 s of the primary's death.
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
export HA_DIR
HA_DIR=$(mktemp -d /tmp/netledger-ha.XXXXXX)
export ADMIN_TOKEN=0123456789abcdef0123456789abcdef01234567
export HTTP_PORT=${HTTP_PORT:-18080}
CLUSTER="bash deploy/ha/cluster.sh"
say() { echo "[$(date +%T)] $*"; }
mark() { echo "$1 $(date +%s%3N)" >> "$HA_DIR/events"; }

LOAD_PID=
cleanup() {
  [ -n "$LOAD_PID" ] && kill -9 "$LOAD_PID" 2>/dev/null
  $CLUSTER down >/dev/null 2>&1
  # HA_KEEP_LOGS=<folder>: every process's log is kept there for a look afterwards.
  [ -n "${HA_KEEP_LOGS:-}" ] && mkdir -p "$HA_KEEP_LOGS" && cp -r "$HA_DIR/log/." "$HA_DIR/load.json" "$HA_KEEP_LOGS/" 2>/dev/null
  rm -rf "$HA_DIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
  echo "test-failover: $1" >&2
  [ -d "$HA_DIR/log" ] && tail -n 20 "$HA_DIR"/log/*.log >&2
  echo "failover: acknowledged lost -1, phantom -1, webhooks lost -1, duplicated -1, writes back after -1 s"
  exit 1
}

install() {
  local missing=()
  command -v patroni >/dev/null || missing+=(patroni)
  command -v etcd >/dev/null || missing+=(etcd-server)
  command -v haproxy >/dev/null || missing+=(haproxy)
  dpkg -s python3-etcd >/dev/null 2>&1 || missing+=(python3-etcd)
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing ${missing[*]}"
  # No default service may start (etcd on 2379, haproxy): a policy that refuses, only while installing.
  local policy=/usr/sbin/policy-rc.d own=
  [ -e $policy ] || { printf '#!/bin/sh\nexit 101\n' > $policy; chmod 755 $policy; own=1; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=600 "${missing[@]}" > "$HA_DIR/apt.log" 2>&1
  local rc=$?
  [ -n "$own" ] && rm -f $policy
  [ $rc -eq 0 ] || { tail -n 20 "$HA_DIR/apt.log" >&2; fail "apt-get install failed"; }
  # Should a service manager run here, keep the packages' default units off.
  if [ -d /run/systemd/system ]; then systemctl disable --now etcd patroni haproxy >/dev/null 2>&1 || true; fi
}

[ "$(id -u)" = 0 ] || fail "run as root"
install
[ -x node_modules/.bin/node ] || npm ci --no-audit --no-fund >/dev/null 2>&1 || fail "npm ci failed"

say "cluster up (under $HA_DIR)"
$CLUSTER up || fail "the cluster did not come up"

export HTTP_URL="http://127.0.0.1:$HTTP_PORT"
NODE_URLS="http://127.0.0.1:${NODE_BASE_PORT:-18081},http://127.0.0.1:$((${NODE_BASE_PORT:-18081} + 1))" node_modules/.bin/node deploy/ha/load.mjs > "$HA_DIR/load.out" 2>&1 &
LOAD_PID=$!
for _ in $(seq 100); do [ -f "$HA_DIR/load-started" ] && break; sleep 0.2; done
[ -f "$HA_DIR/load-started" ] || { cat "$HA_DIR/load.out" >&2; fail "the load did not start"; }

primary() { for n in pg1 pg2; do p=$([ $n = pg1 ] && echo 18008 || echo 18009); curl -sf "http://127.0.0.1:$p/primary" >/dev/null && { echo $n; return; }; done; }
say "steady load for 10 s"; sleep 10
OLD=$(primary)
[ -n "$OLD" ] || fail "no primary"
echo "primary_name_$OLD 0" >> "$HA_DIR/events"
say "1. kill -9 the PostgreSQL primary ($OLD)"
mark primary_killed
$CLUSTER postgres_kill "$OLD"
for _ in $(seq 60); do NEW=$(primary); [ -n "$NEW" ] && [ "$NEW" != "$OLD" ] && break; sleep 0.5; done
say "   primary now: ${NEW:-none}"
sleep 15
say "2. kill -9 NetLedger node 1"
mark node_killed
$CLUSTER node_down 1
sleep 15
say "3. restart the old primary's node ($OLD) as standby"
mark old_primary_restarted
$CLUSTER patroni_down "$OLD"
sleep 1
$CLUSTER patroni_up "$OLD"
REST=$([ "$OLD" = pg1 ] && echo 18008 || echo 18009)
for _ in $(seq 120); do curl -sf "http://127.0.0.1:$REST/replica" >/dev/null && break; sleep 0.5; done
curl -sf "http://127.0.0.1:$REST/replica" >/dev/null && say "   $OLD is a replica again" || say "   $OLD did not rejoin as a replica"
sleep 10
mark load_stopped
touch "$HA_DIR/stop-load"
wait "$LOAD_PID"; LOAD_PID=
cat "$HA_DIR/load.out"
[ -f "$HA_DIR/verdict" ] || fail "the load ended without a verdict"
read -r LOST PHANTOM HLOST DUP BACK < <(node_modules/.bin/node -e 'const v = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); console.log(v.lost, v.phantom, v.hooksLost, v.duplicated, Number.isFinite(v.writesBack) ? v.writesBack.toFixed(1) : "inf")' "$HA_DIR/verdict")
$CLUSTER down >/dev/null 2>&1
echo "failover: acknowledged lost $LOST, phantom $PHANTOM, webhooks lost $HLOST, duplicated $DUP, writes back after $BACK s"
[ "$LOST" = 0 ] && [ "$PHANTOM" = 0 ] && [ "$HLOST" = 0 ] && [ "$BACK" != inf ] && awk -v s="$BACK" 'BEGIN { exit !(s <= 15) }'
