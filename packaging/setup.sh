#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine:
#   bash packaging/setup.sh run    install what is missing, build, open the studio on the
#                                  default scenario (no display: run it with fogstudio-cli)
#   bash packaging/setup.sh test   install what is missing, build, run the whole test suite
#   bash packaging/setup.sh build  install what is missing and build
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
mode="${1:-run}"
build_dir="${FOGSTUDIO_BUILD_DIR:-$here/build}"
jobs="$(nproc 2>/dev/null || echo 2)"

bash packaging/install-deps.sh

export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/ccache}"
# Paths relative to the checkout and no working-directory hash: another clone of the same
# sources (CI's fresh clone) reuses the cache.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$here}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build_dir" -j "$jobs"

case "$mode" in
  run)
    if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
      exec "$build_dir/app/fogstudio" "${@:2}"
    fi
    echo "setup: no display (DISPLAY and WAYLAND_DISPLAY are unset), so the default scenario runs"
    echo "setup: headless with fogstudio-cli; for the studio run $build_dir/app/fogstudio on a desktop."
    exec "$build_dir/app/fogstudio-cli" run presets/quickstart.yaml
    ;;
  test)
    (cd "$build_dir" && ctest --output-on-failure -j 1)
    # Extra check stages (sanitizer builds, fuzzing, ...): one script each under
    # packaging/ci/, run in name order; each installs what it needs and exits non-zero on a
    # finding. FOGSTUDIO_SKIP_STAGES=1 runs the CTest suite alone.
    if [ -z "${FOGSTUDIO_SKIP_STAGES:-}" ]; then
      for stage in packaging/ci/[0-9]*.sh; do
        [ -e "$stage" ] || continue
        echo "setup: stage $(basename "$stage")"
        FOGSTUDIO_BUILD_DIR="$build_dir" bash "$stage"
      done
    fi
    ;;
  build)
    ;;
  *)
    echo "usage: bash packaging/setup.sh [run|test|build]" >&2
    exit 2
    ;;
esac
