#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The Shardscope Authors
# Renders resources/icons/shardscope.svg into the PNG sizes the package installs (hicolor 16..512 px).
# The PNGs are committed, so building and packaging need no SVG renderer; run this again after editing the SVG.
# Needs rsvg-convert (Debian package librsvg2-bin).
set -euo pipefail
icons="$(cd "$(dirname "$0")/../resources/icons" && pwd)"
command -v rsvg-convert >/dev/null || { echo "render-icons.sh: needs rsvg-convert (apt-get install librsvg2-bin)" >&2; exit 1; }
for size in 16 24 32 48 64 128 256 512; do
  rsvg-convert --width "$size" --height "$size" --format png "$icons/shardscope.svg" -o "$icons/shardscope-$size.png"
done
echo "rendered $(ls "$icons"/shardscope-*.png | wc -l) PNGs into $icons"
