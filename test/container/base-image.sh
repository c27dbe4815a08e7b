#!/usr/bin/env bash
# Makes a stand-in for node:20-bookworm-slim where no image registry can be reached: a Debian
# bookworm root made by debootstrap (Debian's packages are reachable), this machine's Node.js
# and npm, and a `node` user (uid 1000), as in the official image. Does nothing when an image
# of that name exists (a real one pulled, or a stand-in made before). The root filesystem is
# kept in a cache so that a removed image is made again without debootstrap.
#
#   base-image.sh [IMAGE]      make IMAGE (default node:20-bookworm-slim) unless it exists
#   base-image.sh --rootfs-only   only the cached root filesystem: needs no Docker engine
#   base-image.sh --modules-dir   print where the production node_modules are cached
set -euo pipefail

CACHE="${CHORUS_CONTAINER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/chorus-container}"
ROOTFS_TAR="$CACHE/bookworm-minbase.tar"
if [ "${1:-}" = --modules-dir ]; then
  # One folder per package-lock.json, so that a changed lock installs afresh.
  echo "$CACHE/prod-modules-$(sha256sum package-lock.json | cut -c1-16)"
  exit 0
fi
ROOTFS_ONLY=false
[ "${1:-}" = --rootfs-only ] && ROOTFS_ONLY=true && shift
IMAGE="${1:-node:20-bookworm-slim}"

if docker image inspect "$IMAGE" >/dev/null 2>&1; then
  echo "base image $IMAGE is there"
  exit 0
fi
if [ "$ROOTFS_ONLY" = true ] && [ -s "$ROOTFS_TAR" ]; then
  echo "root filesystem cached in $ROOTFS_TAR"
  exit 0
fi
command -v debootstrap >/dev/null || { echo "debootstrap is needed (apt-get install debootstrap)" >&2; exit 1; }

mkdir -p "$CACHE"
if [ ! -s "$ROOTFS_TAR" ]; then
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  echo "debootstrap --variant=minbase bookworm (a few minutes, once)"
  debootstrap --variant=minbase bookworm "$work/root" >"$CACHE/debootstrap.log" 2>&1 ||
    { tail -20 "$CACHE/debootstrap.log" >&2; exit 1; }
  # What the slim image leaves out, and what only the build machine needs.
  rm -rf "$work/root"/var/cache/apt/archives/*.deb "$work/root"/var/lib/apt/lists/* \
    "$work/root"/usr/share/doc/* "$work/root"/usr/share/man/*
  tar -C "$work/root" -cf "$ROOTFS_TAR.part" .
  mv "$ROOTFS_TAR.part" "$ROOTFS_TAR"
  rm -rf "$work"
  trap - EXIT
fi
[ "$ROOTFS_ONLY" = true ] && exit 0

# Node.js where the official image has it, and the node user and group (uid and gid 1000).
node_dir="$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")"
modules="$(npm root -g 2>/dev/null)"
layer="$(mktemp -d)"
trap 'rm -rf "$layer"' EXIT
mkdir -p "$layer/usr/local/bin" "$layer/usr/local/lib" "$layer/etc" "$layer/home/node"
tar -C "$layer" -xf "$ROOTFS_TAR" ./etc/passwd ./etc/group ./etc/shadow ./etc/gshadow 2>/dev/null || true
cp "$node_dir/bin/node" "$layer/usr/local/bin/node"
cp -a "$modules" "$layer/usr/local/lib/node_modules"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$layer/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$layer/usr/local/bin/npx"
echo 'node:x:1000:' >>"$layer/etc/group"
echo 'node:x:1000:1000::/home/node:/bin/bash' >>"$layer/etc/passwd"
[ -f "$layer/etc/shadow" ] && echo 'node:*:19000:0:99999:7:::' >>"$layer/etc/shadow"
chown 1000:1000 "$layer/home/node"

cp "$ROOTFS_TAR" "$layer/image.tar"
# docker import refuses an archive that holds a path twice: the edited files replace the old.
tar --delete -f "$layer/image.tar" ./etc/passwd ./etc/group $( [ -f "$layer/etc/shadow" ] && echo ./etc/shadow )
tar -C "$layer" --numeric-owner -rf "$layer/image.tar" ./usr/local/bin/node ./usr/local/bin/npm ./usr/local/bin/npx ./usr/local/lib/node_modules ./etc/passwd ./etc/group ./home/node \
  $( [ -f "$layer/etc/shadow" ] && echo ./etc/shadow )
docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV NODE_VERSION='"$("$node_dir/bin/node" -p process.versions.node)" \
  --change 'CMD ["node"]' \
  "$layer/image.tar" "$IMAGE" >/dev/null
echo "made $IMAGE from debootstrap bookworm and Node.js $("$node_dir/bin/node" --version)"
