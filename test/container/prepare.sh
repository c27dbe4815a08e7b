#!/usr/bin/env bash
# What the container test needs that takes no Docker engine, made once and cached under
# ~/.cache/chorus-container (CHORUS_CONTAINER_CACHE): the stand-in base image's root filesystem
# (debootstrap, a few minutes once) and the production node_modules (`npm install --omit=dev`,
# keyed by package-lock.json). run.sh calls it (nothing to do once cached); CI runs it early, in
# the background, while the test suites run.
set -euo pipefail
cd "$(dirname "$0")/../.."

took() { echo "$(($(date +%s) - $1)) s"; }

started=$(date +%s)
bash test/container/base-image.sh --rootfs-only
echo "prepare: base image's root filesystem ready ($(took "$started"))"

started=$(date +%s)
modules="$(bash test/container/base-image.sh --modules-dir)"
if [ ! -d "$modules/node_modules" ]; then
  rm -rf "$modules" && mkdir -p "$modules"
  cp package.json package-lock.json "$modules/"
  if ! (cd "$modules" && npm install --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null); then
    rm -rf "$modules"
    echo "prepare: npm install --omit=dev failed" >&2
    exit 1
  fi
fi
echo "prepare: production node_modules ready in $modules ($(took "$started"))"
