#!/usr/bin/env bash
# Builds SeaweedFS's `weed` binary, the real S3-compatible server the s3://
# tests run against, and keeps it in a cache directory so a second run does
# not rebuild it. `go install .../weed@VERSION` is refused (its go.mod has
# replace directives), so the module is downloaded from the proxy, copied
# somewhere writable and built in place. Prints the binary's path.
#
# Usage: .ci/seaweedfs.sh [CACHE_DIR]   (default: ~/.cache/fsmount-ci)
set -euo pipefail
version=v0.0.0-20261109003541-7506e5f91cd6
cache=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/fsmount-ci}
bin=$cache/weed-$version
if [ -x "$bin" ]; then
  echo "$bin"
  exit 0
fi
mkdir -p "$cache"
dir=$(cd "$cache" && go mod download -json "github.com/seaweedfs/seaweedfs@$version" |
  sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -d "$dir" ] || { echo "seaweedfs.sh: go mod download gave no directory" >&2; exit 1; }
src=$cache/seaweedfs-src-$version
rm -rf "$src"
cp -r "$dir" "$src"
chmod -R u+w "$src"
# Low priority: the build takes minutes on two cores, others share them.
(cd "$src" && nice -n 10 go build -trimpath -o "$bin.tmp" ./weed) >&2
mv "$bin.tmp" "$bin"
rm -rf "$src"
echo "$bin"
