#!/usr/bin/env bash
# The demo: sets up what is missing, builds once, then runs every example
# (Python and C++) on the GPU when there is one, else on the cpu backend,
# saying where each ran.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
./scripts/setup.sh
./scripts/build.sh
exec "$PYTHON" examples/run_all.py
