#!/usr/bin/env bash
# Installs the build dependencies, builds neuron-serve and starts it on the simulated Neuron
# runtime (sim/libnrtsim.so), in the foreground. Ctrl-C stops it cleanly.
#   LISTEN=0.0.0.0:8001 NRTSIM_CORES=4 bash deploy/quickstart.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/install-deps
cmake -S . -B build -G Ninja
cmake --build build --target neuron-serve nrtsim neuronctl
echo
echo "Starting neuron-serve on the simulated runtime with the example repository deploy/models"
echo "(models 'mlp': a simulated NEFF, an MLP 16 -> 32 -> 8 with softmax, and 'classifier':"
echo "BERT-shaped, int64 input_ids and attention_mask in, float32 and float16 logits out)."
echo "The line 'listening on' says where; 'model 'mlp' ready' that the model serves."
echo "Metrics and HTTP probes: curl http://${HTTP_LISTEN:-127.0.0.1:8002}/metrics (also /readyz, /livez, /v1/models)."
exec ./build/server/neuron-serve \
  --listen="${LISTEN:-127.0.0.1:8001}" \
  --http-listen="${HTTP_LISTEN:-127.0.0.1:8002}" \
  --nrt-library="$PWD/build/sim/libnrtsim.so" \
  --model-repository="$PWD/deploy/models" --load-models=all \
  --state-dir="$PWD/build/state"
