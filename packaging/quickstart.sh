#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The Shardscope Authors
# Shardscope quick start on Debian 12.
#
#   bash packaging/quickstart.sh demo   install what is missing, build, open the GUI on the built-in demo
#                                       (no display: say so and run the CLI on the same demo instead)
#   bash packaging/quickstart.sh test   install what is missing, build, run the whole test suite (CTest)
#
# Environment: BUILD_DIR (default build/), BUILD_TYPE (default RelWithDebInfo), JOBS (default: all cores).
set -euo pipefail

mode=${1:-}
case "$mode" in
  demo|test) ;;
  *) echo "usage: bash packaging/quickstart.sh demo|test" >&2; exit 2 ;;
esac

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
jobs=${JOBS:-$(nproc)}

# Debian packages the build, the tests and the GUI need.
packages=(
  g++ cmake ninja-build ccache pkg-config
  qt6-base-dev qt6-base-dev-tools qt6-qpa-plugins libgl-dev fonts-dejavu-core
  libgraphviz-dev libsqlite3-dev zlib1g-dev libonnx-dev libprotobuf-dev protobuf-compiler
  nlohmann-json3-dev libcli11-dev
  xvfb xauth
  clang libclang-rt-14-dev clang-format clang-tidy dpkg-dev appstream file desktop-file-utils
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "==> installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "error: run as root (or install sudo) to install: ${missing[*]}" >&2; exit 1; }
    sudo=sudo
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

echo "==> configuring and building in $build"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" >/dev/null
cmake --build "$build" -j "$jobs"

if [ "$mode" = test ]; then
  echo "==> running the tests"
  cd "$build"
  exec ctest --output-on-failure -j "$jobs"
fi

if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
  echo "==> opening the explorer on the demo model"
  exec "$build/app/gui/shardscope" zoo:demo
fi
echo "==> no display found (DISPLAY and WAYLAND_DISPLAY are unset): running the CLI on the demo model instead"
exec "$build/app/cli/shardscope-cli" info zoo:demo
