#!/bin/bash
# Usage: deploy/slurm/local-cluster.sh start|stop DIR
# A one-node Slurm cluster on this machine, to run submit.sh and the scripts it queues for real:
# munged (with a key of its own), slurmctld and slurmd, all as root, on two free ports, with their
# configuration, state and logs in DIR. After start: export SLURM_CONF=DIR/slurm.conf.
# stop cancels the cluster's jobs and ends the three daemons by the process ids in DIR/*.pid.
# Exit status: 0 done, 1 a daemon failed (its log is printed), 2 bad usage, 3 this machine cannot run
# it (Slurm or munge not installed, or not root: apt-get install slurm-wlm munge).
set -euo pipefail
PATH=$PATH:/usr/sbin:/sbin
usage() {
    echo "usage: local-cluster.sh start|stop DIR" >&2
    exit 2
}
[ $# -eq 2 ] || usage
action=$1
mkdir -p "$2"
dir=$(cd "$2" && pwd)
daemons=(slurmd slurmctld munged)

# Ends the daemons whose pid files are in $dir (each signalled, then all waited for, up to 10 s) and
# removes the files.
stop() {
    if [ -e "$dir/slurm.conf" ] && [ -e "$dir/slurmctld.pid" ]; then
        SLURM_CONF=$dir/slurm.conf scancel --quiet --user="$(id -un)" 2>/dev/null || true
    fi
    local pids=() daemon pid
    for daemon in "${daemons[@]}"; do
        [ -e "$dir/$daemon.pid" ] || continue
        pid=$(cat "$dir/$daemon.pid")
        [ -n "$pid" ] && kill "$pid" 2>/dev/null && pids+=("$pid")
        rm -f "$dir/$daemon.pid"
    done
    for _ in $(seq 100); do
        local alive=()
        for pid in "${pids[@]}"; do
            kill -0 "$pid" 2>/dev/null && alive+=("$pid")
        done
        [ ${#alive[@]} -gt 0 ] || return 0
        pids=("${alive[@]}")
        sleep 0.1
    done
    echo "local-cluster.sh: process ${pids[*]} still running 10 s after SIGTERM" >&2
    return 1
}

# A TCP port of localhost that nothing listens on, and that differs from $1.
free_port() {
    local port
    while :; do
        port=$((20000 + RANDOM % 20000))
        [ "$port" != "${1:-}" ] || continue
        (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null || break
    done
    echo "$port"
}

# Prints the end of each daemon's log and stops what was started; exits 1.
failed() {
    echo "local-cluster.sh: $1; the logs in $dir:" >&2
    for log in "$dir"/*.log "$dir"/*.out; do
        [ -e "$log" ] && { echo "== $log" && tail -n 20 "$log"; } >&2
    done
    stop
    exit 1
}

start() {
    for tool in munged slurmctld slurmd sinfo sbatch; do
        command -v "$tool" >/dev/null 2>&1 ||
            { echo "local-cluster.sh: $tool is not installed (apt-get install slurm-wlm munge)" >&2 && exit 3; }
    done
    [ "$(id -u)" = 0 ] || { echo "local-cluster.sh: the daemons run as root, and this is $(id -un)" >&2 && exit 3; }
    for daemon in "${daemons[@]}"; do
        if [ -e "$dir/$daemon.pid" ] && kill -0 "$(cat "$dir/$daemon.pid")" 2>/dev/null; then
            echo "local-cluster.sh: $daemon already runs for $dir (local-cluster.sh stop $dir first)" >&2
            exit 1
        fi
    done
    # this machine's CPUs, sockets, cores and memory, as slurmd sees them
    local node
    node=$(slurmd -C 2>/dev/null | head -n 1) || true
    [[ $node == NodeName=* ]] || { echo "local-cluster.sh: slurmd -C cannot describe this machine" >&2 && exit 3; }
    local name=${node%% *} ctld_port slurmd_port
    name=${name#NodeName=}
    ctld_port=$(free_port)
    slurmd_port=$(free_port "$ctld_port")
    mkdir -p "$dir/state" "$dir/spool"
    cat >"$dir/slurm.conf" <<EOF
ClusterName=local
SlurmctldHost=$name(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge.socket,cred_expire=10
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/builtin
# a job starts within a second of the one before it ending (the defaults wait up to a minute)
SchedulerParameters=sched_interval=1,batch_sched_delay=0,sched_min_interval=0
MpiDefault=none
ReturnToService=2
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=local Nodes=$name Default=YES MaxTime=INFINITE State=UP
EOF
    export SLURM_CONF=$dir/slurm.conf
    [ -e "$dir/munge.key" ] || { head -c 1024 /dev/urandom >"$dir/munge.key" && chmod 400 "$dir/munge.key"; }
    # each daemon's own output in DIR/NAME.out, so that none holds the caller's pipes open
    munged --force --key-file="$dir/munge.key" --socket="$dir/munge.socket" --pid-file="$dir/munged.pid" \
        --log-file="$dir/munged.log" --seed-file="$dir/munged.seed" </dev/null >"$dir/munged.out" 2>&1 ||
        failed "munged did not start"
    slurmctld </dev/null >"$dir/slurmctld.out" 2>&1 || failed "slurmctld did not start"
    slurmd </dev/null >"$dir/slurmd.out" 2>&1 || failed "slurmd did not start"
    for _ in $(seq 300); do
        [ "$(sinfo -h -n "$name" -o %T 2>/dev/null)" = idle ] && return 0
        sleep 0.1
    done
    failed "node $name is not idle after 30 s"
}

case $action in
start) start ;;
stop) stop ;;
*) usage ;;
esac
