#!/usr/bin/env bash
# bench/sweep/scale.sh: how a sweep scales from one GPU to two, in one call. For each of three
# sweeps (saxpy_sizes: 19 sizes up to 2^28; transpose_sweep: 66 block shapes; compile_heavy:
# 16 configurations, each its own NVRTC compile of CUB) it runs `kernelpad-cli sweep` fresh
# (results file removed first) with --devices 0 and with --devices 0,1, alternating, REPS times
# (default 2), after one untimed run of each on both devices (device ceilings and the disk
# compile cache made once, for both). It prints each run's wall seconds and busy shares, then
# per sweep the median walls, the ratio (target >= 1.85x), the same ratio without the
# follow-up (the best's re-timing and the A/B after the last configuration: side by side, the A/B on
# every device of one model) and for
# the configurations alone (start-up and exit left out too), whether every run recorded
# the same pass/fail per configuration, and where a configuration's wall went: per stage of the
# runner (compiling, preparing buffers, timing, ...: RunResult::stagesMs) and of this side (the
# pool's queue, the way there and back, recording), the median over the configurations and the
# total, for 1 and 2 GPUs (the --json's balance.stagesMs; per configuration in
# balance.configurations).
#   bench/sweep/scale.sh [REPS]
# kernelpad-cli: $KERNELPAD_CLI, else the one on PATH, else build/app/kernelpad-cli. Extra
# sweep options in $SCALE_ARGS (e.g. --no-confirm); SCALE_KEEP=DIR keeps the runs' --json and
# stderr in DIR. The compile-heavy sweep runs with
# KERNELPAD_CACHE_DIR=off and CUDA_CACHE_DISABLE=1 (NVRTC would take NVVM's and ptxas's output from
# the driver's compute cache otherwise), so that every run compiles in full. Exit 1 when a ratio misses 1.85 or the
# records differ, 3 without two devices, 4 on bad arguments.
# SCALE_WARM=1 runs every sweep through warm runners (kernelpad-cli runners): before the first
# run `runners start --devices 0,1 --spares 2` (a second daemon, in its own XDG_RUNTIME_DIR, for
# the compile-heavy sweep, whose cache variables a spare must share), before each timed run
# `runners wait` (untimed: the spares used by the last run are replaced when it ends), and at
# the end the daemons' counts of warm attaches and of those that fell back cold (should be 0);
# the daemons are stopped on exit.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
reps=${1:-2}
case $reps in '' | *[!0-9]*) echo "scale.sh: REPS must be a number (got '$reps')" >&2; exit 4 ;; esac
cli=${KERNELPAD_CLI:-$(command -v kernelpad-cli || echo "$root/build/app/kernelpad-cli")}
if [ ! -x "$cli" ]; then
    echo "scale.sh: no kernelpad-cli at '$cli': set KERNELPAD_CLI or put it on PATH" >&2
    exit 4
fi
command -v python3 > /dev/null || { echo "scale.sh: needs python3 for the summary" >&2; exit 4; }
work=$(mktemp -d)
warm=${SCALE_WARM:-0}
heavy_env=(env KERNELPAD_CACHE_DIR=off CUDA_CACHE_DISABLE=1)
# The compile-heavy sweep's warm runners: their own folder, since their environment differs.
heavy_runtime="$work/heavy-runtime"
finish() {
    if [ "$warm" = 1 ]; then
        "$cli" runners stop > /dev/null
        "${heavy_env[@]}" XDG_RUNTIME_DIR="$heavy_runtime" "$cli" runners stop > /dev/null
    fi
    # Each configuration's split is in a kept --json's balance.configurations.
    if [ -n "${SCALE_KEEP:-}" ]; then
        mkdir -p "$SCALE_KEEP" && cp "$work"/*.json "$work"/*.err "$SCALE_KEEP"/ 2> /dev/null
    fi
    rm -rf "$work"
}
trap finish EXIT
if [ "$warm" = 1 ]; then
    mkdir -m 700 "$heavy_runtime"
    if ! { "$cli" runners start --devices 0,1 --spares 2 &&
        "${heavy_env[@]}" XDG_RUNTIME_DIR="$heavy_runtime" "$cli" runners start --devices 0,1 \
            --spares 2; }; then
        echo "scale.sh: SCALE_WARM=1: the warm runners did not start" >&2
        exit 4
    fi
fi
# shellcheck disable=SC2206 # SCALE_ARGS is a list of options
extra=(${SCALE_ARGS:-})

sweeps="saxpy_sizes:$root/resources/examples/saxpy_sizes.kpad
transpose_sweep:$root/resources/examples/transpose_sweep.kpad
compile_heavy:$root/bench/sweep/compile_heavy.kpad"

# run NAME PROJECT DEVICES TAG: one fresh sweep, its --json in $work/TAG.json and its wall
# seconds in $work/TAG.wall.
run() {
    local name=$1 project=$2 devices=$3 tag=$4 cache=()
    [ "$name" = compile_heavy ] && cache=("${heavy_env[@]}")
    [ "$name" = compile_heavy ] && [ "$warm" = 1 ] && cache+=(XDG_RUNTIME_DIR="$heavy_runtime")
    rm -f "$work/$name.jsonl"
    # Untimed: the spares the last run used are replaced once it ended.
    if [ "$warm" = 1 ] && ! "${cache[@]}" "$cli" runners wait --timeout 120; then
        echo "scale.sh: the warm runners were not ready before $tag" >&2
    fi
    local start end
    start=$(date +%s.%N)
    "${cache[@]}" "$cli" sweep "$project" --devices "$devices" --results "$work/$name.jsonl" \
        --json "${extra[@]}" > "$work/$tag.json" 2> "$work/$tag.err"
    local rc=$?
    end=$(date +%s.%N)
    echo "$start $end" | awk '{ printf "%.3f\n", $2 - $1 }' > "$work/$tag.wall"
    if [ $rc -gt 1 ]; then # 1: no configuration passed, still a sweep
        echo "scale.sh: $name on --devices $devices failed (exit $rc):" >&2
        tail -5 "$work/$tag.err" >&2
        if grep -q "there is no device 1" "$work/$tag.err"; then exit 3; fi
    fi
}

echo "kernelpad-cli: $cli; $reps repetitions; options: ${SCALE_ARGS:-(none)}; runners:" \
    "$([ "$warm" = 1 ] && echo "warm (kernelpad-cli runners)" || echo cold)"
while IFS=: read -r name project; do
    run "$name" "$project" 0,1 "$name-warmup"
    for r in $(seq 1 "$reps"); do
        for devices in 0 0,1; do
            tag="$name-${devices/,/+}-$r"
            run "$name" "$project" "$devices" "$tag"
            echo "$name --devices $devices #$r: $(cat "$work/$tag.wall") s"
        done
    done
done <<< "$sweeps"

if [ "$warm" = 1 ]; then
    for runtime in "" "$heavy_runtime"; do
        "${heavy_env[@]}" ${runtime:+XDG_RUNTIME_DIR="$runtime"} "$cli" runners status --json |
            python3 -c 'import json, sys
s = json.load(sys.stdin)
why = " (last because " + s["lastColdReason"] + ")" if "lastColdReason" in s else ""
print("warm runners%s: %d runners were warm spares, %d fell back cold%s"
      % (sys.argv[1], s.get("attaches", 0), s.get("coldFallbacks", 0), why))' \
                "$([ -n "$runtime" ] && echo " (compile_heavy)")"
    done
fi

python3 - "$work" "$reps" <<'PY'
import json, statistics, sys
work, reps = sys.argv[1], int(sys.argv[2])
names = ["saxpy_sizes", "transpose_sweep", "compile_heavy"]
missed = False
print()
for name in names:
    walls, phases, bare, outcomes, stages = {}, {}, {}, {}, {}
    for devices in ("0", "0+1"):
        for r in range(1, reps + 1):
            tag = f"{work}/{name}-{devices}-{r}"
            wall = float(open(tag + ".wall").read())
            try:
                out = json.load(open(tag + ".json"))
            except ValueError:
                out = {}
            balance = out.get("balance", {})
            walls.setdefault(devices, []).append(wall)
            for side, summary in balance.get("stagesMs", {}).items():
                if side == "wall":
                    summary = {"configuration (handed over to answered)": summary}
                for stage, figures in summary.items():
                    stages.setdefault((side, stage), {}).setdefault(devices, []).append(figures)
            phases.setdefault(devices, []).append(balance.get("wallMs", float("nan")) / 1000)
            bare.setdefault(devices, []).append(wall - balance.get("followUpMs", 0) / 1000)
            outcomes[(devices, r)] = sorted((rec["key"], rec["status"])
                                            for rec in out.get("results", []))
            shares = ", ".join(f"{d['device']} {d['busyPercent']:.0f} % ({d['configurations']})"
                               for d in balance.get("devices", []))
            configs = balance.get('wallMs', 0) / 1000
            follow = balance.get('followUpMs', 0) / 1000
            print(f"{name} --devices {devices.replace('+', ',')} #{r}: wall {wall:.2f} s = "
                  f"start-up and exit {wall - configs - follow:.2f} s + configurations "
                  f"{configs:.2f} s + follow-up {follow:.2f} s, "
                  f"{out.get('passed', '?')} of {out.get('evaluated', '?')} passed; busy: {shares}; "
                  f"order: {balance.get('orderedBy', 'the space')}")
    one, two = statistics.median(walls["0"]), statistics.median(walls["0+1"])
    p1, p2 = statistics.median(phases["0"]), statistics.median(phases["0+1"])
    b1, b2 = statistics.median(bare["0"]), statistics.median(bare["0+1"])
    same = len({tuple(v) for v in outcomes.values()}) == 1 and outcomes[("0", 1)] != []
    ratio = one / two if two > 0 else 0
    missed = missed or ratio < 1.85 or not same
    print(f"== {name}: 1 GPU {one:.2f} s, 2 GPUs {two:.2f} s: {ratio:.2f}x "
          f"({'met' if ratio >= 1.85 else 'missed'} 1.85x); without the follow-up "
          f"{b1:.2f} s -> {b2:.2f} s: {b1 / b2 if b2 > 0 else 0:.2f}x; configurations alone "
          f"{p1:.2f} s -> {p2:.2f} s: {p1 / p2 if p2 > 0 else 0:.2f}x; pass/fail records "
          f"{'identical' if same else 'DIFFER'}")
    # Where each configuration's wall went (balance.stagesMs): per stage the median over the
    # configurations, then the median of that over the runs; the total per run likewise.
    print(f"   {name}, ms per configuration, median (total per run), 1 GPU | 2 GPUs:")
    for side in ("wall", "runner", "client"):
        order = ["waiting in the runner", "reading the request", "starting the run",
                 "compiling", "loading", "measuring the device's copy ceiling",
                 "preparing buffers", "verifying launch", "verifying", "warming up", "timing",
                 "timing the pipeline", "writing the result", "waiting in the pool",
                 "the way there and back", "settling the answer", "recording"]
        keys = [k for k in stages if k[0] == side]
        for key in sorted(keys, key=lambda k: (order.index(k[1]) if k[1] in order else 99, k[1])):
            cells = []
            for devices in ("0", "0+1"):
                figures = stages[key].get(devices, [])
                if not figures:
                    cells.append("-")
                    continue
                med = statistics.median(f["median"] for f in figures)
                tot = statistics.median(f["total"] for f in figures)
                cells.append(f"{med:8.2f} ({tot:8.1f})")
            label = {"wall": "", "runner": "runner: ", "client": "client: "}[side] + key[1]
            print(f"     {label:<46} {cells[0]:>20} | {cells[1]:>20}")
sys.exit(1 if missed else 0)
PY
