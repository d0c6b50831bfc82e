#!/usr/bin/env bash
# MPI sweeps and searches: a real `mpirun -n 2 --oversubscribe` sweep (timing only, small)
# must store the same results as a one-process sweep; a rank killed mid-sweep loses only
# its in-flight trial, which `sweep --resume` then runs; a 2-rank `seek` stores the same
# runs as one process, and one that loses a rank still ends with the one-process answer;
# and the 1 vs 2 rank speed-up is printed (a benchmark: printed, never asserted).
set -euo pipefail

build="${FOGSTUDIO_BUILD_DIR:?FOGSTUDIO_BUILD_DIR names the main build}"
cli="$build/app/fogstudio-cli"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

if ! command -v mpirun >/dev/null; then
  echo "30-mpi: mpirun missing (packaging/install-deps.sh installs openmpi-bin)" >&2
  exit 1
fi
if ! ldd "$cli" | grep libmpi >/dev/null; then
  echo "30-mpi: $cli was built without MPI (libopenmpi-dev missing when CMake ran?)" >&2
  exit 1
fi

mpi=(mpirun --oversubscribe)
if [ "$(id -u)" -eq 0 ]; then mpi+=(--allow-run-as-root); fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/timing.yaml" <<'YAML'
schema_version: 1
name: ci-mpi (timing only)
seed: 9
topology:
  nodes:
    - {id: server, tier: cloud, role: aggregator, price_per_hour: 0.4}
  groups:
    - id: dev
      count: 40
      tier: device
      role: trainer
      parent: server
      compute: {throughput: {min: 20, max: 80}, noise: {kind: exponential}}
      availability: {kind: markov, mean_up_s: 600, mean_down_s: 200}
data: {dataset: none, samples_per_trainer: 100}
model: {kind: none, wire_bytes: 100000}
training: {batch_size: 10, local_steps: 2}
sync: {policy: fully-sync}
selection: {policy: random-k, k: 4}
stop: {rounds: 100}
YAML
vary=(--vary selection.k=2,4,8 --vary sync.policy=fully-sync,async --repeat 2)

# Compares two stores' sweep 1 row by row, without run ids and wall-clock times.
same_results() {
  local a="$1" b="$2"
  "$cli" export metrics --sweep 1 --db "$a" --format csv | cut -d, -f2-10,12- | sort >"$tmp/a.csv"
  "$cli" export metrics --sweep 1 --db "$b" --format csv | cut -d, -f2-10,12- | sort >"$tmp/b.csv"
  if ! cmp -s "$tmp/a.csv" "$tmp/b.csv"; then
    echo "30-mpi: $a and $b differ:" >&2
    diff "$tmp/a.csv" "$tmp/b.csv" | head -20 >&2
    return 1
  fi
  echo "30-mpi: $(($(wc -l <"$tmp/a.csv") - 1)) metric rows identical"
}

echo "30-mpi: one-process sweep"
"$cli" sweep "$tmp/timing.yaml" "${vary[@]}" --threads 1 --quiet --db "$tmp/one.db" >/dev/null
echo "30-mpi: mpirun -n 2 sweep"
"${mpi[@]}" -n 2 "$cli" sweep "$tmp/timing.yaml" "${vary[@]}" --threads 1 --quiet --db "$tmp/mpi.db" \
  | tee "$tmp/mpi.log" | tail -3
grep -q "over 2 MPI ranks" "$tmp/mpi.log"
same_results "$tmp/one.db" "$tmp/mpi.db"

# A rank killed mid-sweep: mpirun keeps the others (orte_abort_on_non_zero_status 0), rank 0
# notices the silence, reports the lost trial and stores the rest; --resume completes it.
echo "30-mpi: killing rank 2 of 3 mid-sweep"
cat >"$tmp/slow.yaml" <<'YAML'
schema_version: 1
name: ci-mpi (timing only)
seed: 9
topology:
  nodes:
    - {id: server, tier: cloud, role: aggregator, price_per_hour: 0.4}
  groups:
    - id: dev
      count: 40
      tier: device
      role: trainer
      parent: server
      compute: {throughput: {min: 20, max: 80}, noise: {kind: exponential}}
      availability: {kind: markov, mean_up_s: 600, mean_down_s: 200}
data: {dataset: none, samples_per_trainer: 100}
model: {kind: none, wire_bytes: 100000}
training: {batch_size: 10, local_steps: 2}
sync: {policy: fully-sync}
selection: {policy: random-k, k: 4}
stop: {rounds: 15000}
YAML
set +e
FOGSTUDIO_MPI_TIMEOUT=10 timeout 150 "${mpi[@]}" --mca orte_abort_on_non_zero_status 0 -n 3 \
  "$cli" sweep "$tmp/slow.yaml" "${vary[@]}" --threads 1 --db "$tmp/killed.db" >"$tmp/killed.log" 2>&1 &
job=$!
# Kill rank 2 once it has stored a run: it has asked for the next one then, so it dies
# with a trial in flight (on a loaded machine rank 2 may start after the others have
# taken every run; waiting for any first run was not enough).
victim=""
for _ in $(seq 1 900); do
  if grep -q '^\[[0-9]*/[0-9]*\] rank 2: ' "$tmp/killed.log" 2>/dev/null; then
    victim="$(pgrep -f "fogstudio-cli sweep $tmp/slow.yaml" | while read -r p; do
      if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx OMPI_COMM_WORLD_RANK=2; then echo "$p"; fi
    done | head -1)"
    break
  fi
  sleep 0.1
done
[ -n "$victim" ] && kill -9 "$victim"
wait "$job"
rc=$?
set -e
grep -v "^\[" "$tmp/killed.log" | tail -8 || true
if [ -z "$victim" ]; then echo "30-mpi: no run finished, or rank 2 was not found" >&2; exit 1; fi
if [ "$rc" -eq 0 ]; then echo "30-mpi: a sweep that lost a rank must not exit 0" >&2; exit 1; fi
grep -q "lost with their rank" "$tmp/killed.log" || { echo "30-mpi: the lost trial was not reported" >&2; exit 1; }
stored="$("$cli" runs list --sweep 1 --db "$tmp/killed.db" | grep -c finished || true)"
echo "30-mpi: $stored of 12 runs stored before the resume"
[ "$stored" -ge 1 ] && [ "$stored" -lt 12 ]
"$cli" sweep --resume 1 --threads 1 --quiet --db "$tmp/killed.db" | tail -3
"$cli" sweep "$tmp/slow.yaml" "${vary[@]}" --threads 1 --quiet --parallel 2 --db "$tmp/slow-one.db" >/dev/null
same_results "$tmp/slow-one.db" "$tmp/killed.db"

# seek: a 2-rank search stores the same runs and names the same best as one process.
seek=(seek --objective min:time --constraint 'cost<=2' --param selection.k=int:2..8:2
      --param sync.policy=choice:fully-sync,async --repeat 2 --threads 1)
echo "30-mpi: one-process seek"
"$cli" seek "$tmp/timing.yaml" "${seek[@]:1}" --quiet --db "$tmp/seek-one.db" >"$tmp/seek-one.log"
echo "30-mpi: mpirun -n 2 seek"
"${mpi[@]}" -n 2 "$cli" seek "$tmp/timing.yaml" "${seek[@]:1}" --quiet --db "$tmp/seek-mpi.db" >"$tmp/seek-mpi.log"
tail -1 "$tmp/seek-mpi.log"
grep -q "search over 2 MPI ranks" "$tmp/seek-mpi.log"
same_results "$tmp/seek-one.db" "$tmp/seek-mpi.db"
if ! diff <(grep '^Best' "$tmp/seek-one.log") <(grep '^Best' "$tmp/seek-mpi.log"); then
  echo "30-mpi: the 2-rank search found another best configuration" >&2
  exit 1
fi

# A rank killed mid-search: rank 0 starts the runs it held again on the others (the
# emulator is deterministic), so the search ends with the one-process answer.
echo "30-mpi: killing rank 2 of 3 mid-search"
set +e
FOGSTUDIO_MPI_TIMEOUT=5 timeout 150 "${mpi[@]}" --mca orte_abort_on_non_zero_status 0 -n 3 \
  "$cli" seek "$tmp/slow.yaml" "${seek[@]:1}" --set stop.rounds=5000 --db "$tmp/seek-killed.db" \
  >"$tmp/seek-killed.log" 2>&1 &
job=$!
victim=""
for _ in $(seq 1 600); do
  if grep -q '^\[1/' "$tmp/seek-killed.log" 2>/dev/null; then
    victim="$(pgrep -f "fogstudio-cli seek $tmp/slow.yaml" | while read -r p; do
      if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx OMPI_COMM_WORLD_RANK=2; then echo "$p"; fi
    done | head -1)"
    break
  fi
  sleep 0.1
done
[ -n "$victim" ] && kill -9 "$victim"
wait "$job"
set -e
grep -E "lost|search over" "$tmp/seek-killed.log" || true
if [ -z "$victim" ]; then echo "30-mpi: no trial step finished, or rank 2 was not found" >&2; exit 1; fi
grep -q "rank 2 lost" "$tmp/seek-killed.log" || { echo "30-mpi: the lost rank was not reported" >&2; exit 1; }
"$cli" seek "$tmp/slow.yaml" "${seek[@]:1}" --set stop.rounds=5000 --quiet --parallel 2 --db "$tmp/seek-slow-one.db" \
  >"$tmp/seek-slow-one.log"
same_results "$tmp/seek-slow-one.db" "$tmp/seek-killed.db"
diff <(grep '^Best' "$tmp/seek-slow-one.log") <(grep '^Best' "$tmp/seek-killed.log")

echo "30-mpi: benchmark (printed, not checked)"
"$cli" bench mpi
echo "30-mpi: ok"
