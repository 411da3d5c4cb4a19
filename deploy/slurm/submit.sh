#!/bin/bash
# Usage: deploy/slurm/submit.sh N SHARDS [G]
# Queues the tasks of shard.sbatch as a job array (TASKS, default 1-SHARDS; TASKS=17 runs task 17
# again alone), then combine.sbatch once all of them have ended (afterany: where a task failed, the
# combine fails naming the missing shards, instead of waiting in the queue for ever).
# The time limits are twice fibtree estimate's time on this machine plus 10 minutes, for a shard on
# shard.sbatch's CPUs and for the combine; SHARD_TIME and COMBINE_TIME (as sbatch --time takes
# them, e.g. 90 or 1-12:00:00) set them instead. Needs fibtree on the PATH here too.
set -euo pipefail
usage="usage: submit.sh N SHARDS [G]"
N=${1:?$usage}
S=${2:?$usage}
here=$(cd "$(dirname "$0")" && pwd)
export N S G="${3:-0}" OUT="${OUT:-$PWD/out}"
threads=$(sed -n 's/^#SBATCH --cpus-per-task=//p' "$here/shard.sbatch")
# checks N, G and S (exit 2, naming the bad one) before anything is queued
estimate=$(fibtree estimate "$N" --g "$G" --shards "$S" --threads "$threads" --json)

# The minutes of twice the "seconds" of the JSON object named $1 in the estimate, plus 10.
limit() {
    local seconds
    seconds=$(grep -o "\"$1\":\\[\\?{[^}]*}" <<<"$estimate" | grep -o '"seconds":[0-9.e+-]*' | cut -d: -f2) ||
        { echo "submit.sh: fibtree estimate --json gave no seconds for $1" >&2 && exit 1; }
    awk -v s="$seconds" 'BEGIN { m = 2 * s / 60; printf "%d\n", (m == int(m) ? m : int(m) + 1) + 10 }'
}
shard_time=${SHARD_TIME:-}
[ -n "$shard_time" ] || shard_time=$(limit shards)
combine_time=${COMBINE_TIME:-}
[ -n "$combine_time" ] || combine_time=$(limit combine)
tasks=${TASKS:-1-$S}
array=$(sbatch --parsable --array="$tasks" --time="$shard_time" "$here/shard.sbatch")
array=${array%%;*}
combine=$(sbatch --parsable --dependency="afterany:$array" --time="$combine_time" "$here/combine.sbatch")
echo "job $array: tasks $tasks of $S shards of c($N, $G), --time=$shard_time each, writing $OUT"
echo "job ${combine%%;*}: combine, --time=$combine_time, after job $array"
