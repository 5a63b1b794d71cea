#!/usr/bin/env bash
# The GPU measurements (benchmarks/results/corpus-gpu-h200.csv and the docs' Benchmarks page), in one call on a lent
# GPU machine (the team's device tool; its image has Python 3.12, torch
# 2.11+cu130 and transformers 5.x, no package registry).  Carried wheels
# replace what the corpus needs in another version (transformers 4.52.4, the
# paper's) or lacks (libcst); fetch them here first:
#
#   echo /.whl/ >> .git/info/exclude
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 \
#       --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux2014_x86_64 \
#       -d .whl libcst==1.9.0 transformers==4.52.4 tokenizers==0.21.4 huggingface_hub==0.36.2 loguru==0.7.3
#
# (the detection step needs torchvision==0.26.0 and pillow instead of the
# transformers wheels: torchvision's CUDA 13 extension loads beside the
# image's torch 2.11+cu130) and run `bash benchmarks/gpu_bench.sh` there with
# `.whl` carried (about 8 minutes on an H200: corpus step 90 s, cold step
# 380 s).  STEPS picks the steps (default "corpus cold").  Each step has
# its own time limit and writes its results as it goes, so a step cut short
# keeps the rows it finished.
#   1. python -m benchmarks on CUDA: graphs, breaks and identical outputs per row,
#      and CUDA-graph launches per forward under mode="reduce-overhead"
#      CLAP, which nothing mends, is the control.
#   2. python -m benchmarks --cold on CUDA: first call and warm latency (batch 1 and
#      16x), torch.compile vs graphmend.compile, fresh processes interleaved,
#      with the control arm (torch.compile again) and a second process.
#   3. detection: the same harness on torchvision's detectors under inductor
#      (first call and warm latency, torch.compile vs graphmend.compile, with
#      the control on the first row), where graphmend runs fewer graphs a call.
set -u
OUT=${OUT:-gpu-results}
mkdir -p "$OUT"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH="$PWD:/tmp/site" PYTHONUNBUFFERED=1
{
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv
    python3 -c "import sys, importlib.metadata as m, torch, transformers; print(sys.version.split()[0], torch.__version__, transformers.__version__, m.version('libcst'), torch.cuda.get_device_name())"
    nproc
} 2>&1 | tee "$OUT/environment.txt"

STEPS=${STEPS:-corpus cold}
CORPUS_ROWS=${CORPUS_ROWS:-biogpt t5 clap}
COLD_ROWS=${COLD_ROWS:-biogpt}
DETECTION_ROWS=${DETECTION_ROWS:-ssd300 fasterrcnn retinanet}
for step in $STEPS; do
    start=$(date +%s)
    case $step in
    corpus)
        timeout "${CORPUS_LIMIT:-200}" python3 -m benchmarks --device "${DEVICE:-cuda}" --backend eager \
            --rows $CORPUS_ROWS --out "$OUT/corpus" 2>&1 | grep -v '^\s*$' | tail -25 ;;
    cold)
        timeout "${COLD_LIMIT:-400}" python3 -m benchmarks --cold --device "${DEVICE:-cuda}" --rows $COLD_ROWS \
            --control "${COLD_ROWS%% *}" --repetitions "${REPETITIONS:-3}" --warm-processes "${WARM_PROCESSES:-0}" \
            --threads 4 --large-batch 16 --out "$OUT/cold" 2>&1 | grep -v '^\s*$' | tail -25 ;;
    detection)
        timeout "${DETECTION_LIMIT:-480}" python3 -m benchmarks --cold --device "${DEVICE:-cuda}" \
            --rows $DETECTION_ROWS --control "${DETECTION_ROWS%% *}" --arms torch graphmend control \
            --repetitions "${REPETITIONS:-2}" --warm-processes 0 --repeats "${REPEATS:-30}" --threads 4 \
            --out "$OUT/detection" 2>&1 | grep -v '^\s*$' | tail -25 ;;
    *) echo "unknown step $step"; exit 2 ;;
    esac
    echo "$step step: $(( $(date +%s) - start )) s"
done
cat "$OUT/corpus/results.md" "$OUT/cold/timing.md" "$OUT/detection/timing.md" 2>/dev/null
