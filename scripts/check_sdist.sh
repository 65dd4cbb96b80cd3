#!/usr/bin/env bash
# Builds the sdist (dist/cuforge-*.tar.gz, from scripts/build_wheel.sh --sdist)
# as a cpu-only user would, on a view of this machine without the CUDA
# toolkit: in a private mount namespace where the toolkit's folders are empty
# and nvcc is off PATH, pip builds it in build isolation (its build
# requirements from the package index: cuda.h comes from
# nvidia-cuda-runtime), installs it into a fresh virtual environment, and a
# kernel runs on the cpu backend. Needs root or unprivileged user namespaces,
# the network (the build requirements) and LLVM 19's development files; the
# whole library is compiled, so it takes the time of a full build.
#
#   scripts/check_sdist.sh [dist/cuforge-X.tar.gz]
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
sdist=$(realpath "${1:-$(ls dist/cuforge-*.tar.gz | head -1)}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# What "no toolkit" hides: every toolkit folder, and PATH's entries into them.
hide=()
for d in /usr/local/cuda /usr/local/cuda-* /opt/cuda ${CUDA_HOME:-} ${CUDA_PATH:-}; do
  [ -d "$d" ] && hide+=("$(realpath "$d")")
done
path=$(printf '%s' "$PATH" | tr ':' '\n' | grep -v -i cuda | paste -sd: -)
# Wrappers elsewhere on PATH that call into the toolkit (this machine's
# /usr/local/bin/nvcc): covered by /dev/null, which is not executable.
tools=()
for t in nvcc ptxas nvlink fatbinary cudafe++ bin2c nvdisasm cuobjdump; do
  w=$(PATH="$path" command -v "$t" || true)
  [ -n "$w" ] && tools+=("$w")
done

cp scripts/first_kernel.py "$work/"

cat > "$work/inside.sh" <<EOF
set -euo pipefail
for d in ${hide[*]}; do mount -t tmpfs -o ro,size=1k none "\$d"; done
for t in ${tools[*]:-}; do mount --bind /dev/null "\$t"; done
export PATH="$path"
unset CUDA_HOME CUDA_PATH CUDACXX
if nvcc --version >/dev/null 2>&1 || [ -e /usr/local/cuda/include/cuda.h ]; then
  echo "check_sdist: the toolkit is still visible: \$(command -v nvcc) \$(ls /usr/local/cuda/include/cuda.h 2>&1)" >&2; exit 1
fi
"$PYTHON" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q --disable-pip-version-check "$sdist"
cd "$work" && CUFORGE_BACKEND=cpu "$work/venv/bin/python" first_kernel.py
EOF
if [ "$(id -u)" = 0 ]; then
  unshare --mount --propagation private bash "$work/inside.sh"
else
  unshare --map-root-user --mount --propagation private bash "$work/inside.sh"
fi
