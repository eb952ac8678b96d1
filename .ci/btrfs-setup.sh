#!/usr/bin/env bash
# Creates the real file systems the linking tests need and prints them as shell assignments:
#   DEDUP_TEST_BTRFS=/mnt/dedup-btrfs    a 1 GiB btrfs (reflink clones, FIDEDUPERANGE)
#   DEDUP_TEST_SMALLFS=/mnt/dedup-small  a 64 MiB ext4 with few inodes (full-disk tests)
# Needs root, btrfs-progs, e2fsprogs and loop devices. Idempotent: mounted file systems are reused.
# Usage: eval "$(.ci/btrfs-setup.sh)"   (prints nothing and exits 0 when it cannot set them up,
# so the tests that need them are reported as skipped; with CI set they fail instead).
#        .ci/btrfs-setup.sh --require      (CI: exits 1 with the reason when either file system cannot be set up).
set -euo pipefail

require=false
case "${1:-}" in
  --require) require=true ;;
  "") ;;
  *) echo "usage: $0 [--require]" >&2; exit 2 ;;
esac

images=${DEDUP_TEST_IMAGES:-/var/tmp/dedup-test-images}
btrfs_mount=/mnt/dedup-btrfs
small_mount=/mnt/dedup-small

say() { echo "btrfs-setup: $*" >&2; }

# Without --require a missing prerequisite is only reported, so developers without root still get a clean run.
give_up() {
  if $require; then say "$*; failing (--require)"; exit 1; fi
  say "$*; skipping"
  exit 0
}

if [ "$(id -u)" != 0 ]; then give_up "not root"; fi
if ! command -v mkfs.btrfs >/dev/null || ! command -v mkfs.ext4 >/dev/null; then
  if command -v apt-get >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends btrfs-progs e2fsprogs >/dev/null 2>&1 || true
  fi
fi
if ! command -v mkfs.btrfs >/dev/null || ! command -v mkfs.ext4 >/dev/null; then give_up "mkfs.btrfs or mkfs.ext4 missing"; fi

mkdir -p "$images" "$btrfs_mount" "$small_mount"

mount_image() { # image size mountpoint mkfs...
  local image=$1 size=$2 mountpoint=$3; shift 3
  if mountpoint -q "$mountpoint"; then return 0; fi
  rm -f "$image"
  truncate -s "$size" "$image"
  "$@" "$image" >/dev/null 2>&1
  mount -o loop "$image" "$mountpoint"
}

failed=0
if mount_image "$images/btrfs.img" 1G "$btrfs_mount" mkfs.btrfs -q -f; then
  echo "export DEDUP_TEST_BTRFS=$btrfs_mount"
else
  say "could not mount btrfs at $btrfs_mount"
  failed=1
fi

# 64 MiB ext4 with 256 inodes, so both blocks and inodes can be exhausted quickly.
if mount_image "$images/small.img" 64M "$small_mount" mkfs.ext4 -q -F -N 256 -m 0; then
  echo "export DEDUP_TEST_SMALLFS=$small_mount"
else
  say "could not mount the small file system at $small_mount"
  failed=1
fi

if $require && [ "$failed" != 0 ]; then say "a test file system is missing; failing (--require)"; exit 1; fi
