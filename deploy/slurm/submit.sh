#!/bin/bash
# Usage: deploy/slurm/submit.sh N SHARDS [G]
# Queues SHARDS tasks of shard.sbatch as a job array, then combine.sbatch after all of them succeed.
set -euo pipefail
N=${1:?usage: submit.sh N SHARDS [G]}
S=${2:?usage: submit.sh N SHARDS [G]}
here=$(cd "$(dirname "$0")" && pwd)
export N G="${3:-0}" OUT="${OUT:-$PWD/out}"
array=$(sbatch --parsable --array="1-$S" "$here/shard.sbatch")
sbatch --dependency="afterok:${array%%;*}" "$here/combine.sbatch"
