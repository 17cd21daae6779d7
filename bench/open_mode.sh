#!/usr/bin/env bash
# What passthrough gains on files/ and what answering OPEN costs elsewhere:
# fsmount with and without --passthrough, back to back in each round (the
# order alternating), on the dense 0.6B layout that `go run ./bench` made.
#
#   bench/open_mode.sh [ROUNDS]     # as root; default 5 rounds
#
# Env: CACHE (default /root/fsb, bench's -cache), BIN (default CACHE/bin,
# where bench builds fsmount). Per round and mode: mount-ready; find and
# a cat of every shape and dtype, cold then 3 warm (as bench/ does); ls
# -lR; one cat process per shape/dtype file; files/model.safetensors hot
# (one cat to warm, the second timed, as bench/'s files/ row) against a
# direct read just before; and cold (caches dropped before each) against
# a cold direct read. Prints medians and the median per-round ratio.
set -euo pipefail
ROUNDS=${1:-5}
CACHE=${CACHE:-/root/fsb}
BIN=${BIN:-$CACHE/bin/fsmount}
MODEL=$CACHE/qwen3-0.6b-dense
FILE=$MODEL/model.safetensors
[ "$(id -u)" = 0 ] || { echo "run as root: it mounts and drops caches" >&2; exit 1; }
[ -x "$BIN" ] && [ -f "$FILE" ] || { echo "run go run ./bench -cache $CACHE first (it builds $BIN and writes $FILE)" >&2; exit 1; }
work=$(mktemp -d)
MNT=$work/mnt
mkdir "$MNT"
trap 'umount "$MNT" 2>/dev/null; rm -rf "$work"' EXIT

now() { echo "${EPOCHREALTIME/./}"; } # µs, no fork
t() { local s; s=$(now); eval "$1"; echo $(($(now) - s)); }
drop() { sync; echo 3 >/proc/sys/vm/drop_caches; }
mountit() { "$BIN" -q $1 "$MODEL" "$MNT"; }
umountit() { for _ in $(seq 20); do umount "$MNT" 2>/dev/null && return; sleep 0.05; done; umount "$MNT"; }

mountit ""
find "$MNT" -path "$MNT/by-name" -prune -o -path "$MNT/expected" -prune -o -path "$MNT/files" -prune -o \( -name shape -o -name dtype \) -printf '%P\0' >"$work/meta"
umountit
catmeta() { (cd "$MNT" && xargs -0 cat <"$work/meta" >/dev/null); }

session() { # $1 label, $2 flags: prints "label figure µs" lines
	local l=$1 f=$2
	echo "$l mount-ready $(t "mountit '$f'")"
	echo "$l find,cold $(t "find $MNT >/dev/null")"
	echo "$l cat-every-shape+dtype,cold $(t catmeta)"
	for _ in 1 2 3; do
		echo "$l find,warm $(t "find $MNT >/dev/null")"
		echo "$l cat-every-shape+dtype,warm $(t catmeta)"
	done
	echo "$l ls-lR $(t "ls -lR $MNT >/dev/null")"
	echo "$l a-cat-per-shape+dtype $(t "(cd $MNT && xargs -0 -n1 cat <$work/meta >/dev/null)")"
	cat "$FILE" >/dev/null
	echo "$l direct,hot $(t "cat $FILE >/dev/null")"
	cat "$MNT/files/model.safetensors" >/dev/null
	echo "$l files/,hot $(t "cat $MNT/files/model.safetensors >/dev/null")"
	umountit
	drop
	echo "$l direct,cold $(t "cat $FILE >/dev/null")"
	drop
	mountit "$f"
	echo "$l files/,cold $(t "cat $MNT/files/model.safetensors >/dev/null")"
	cmp "$MNT/files/model.safetensors" "$FILE"
	umountit
}

for r in $(seq "$ROUNDS"); do
	echo "open_mode.sh: round $r of $ROUNDS" >&2
	if ((r % 2)); then
		session splice ""
		session passthrough --passthrough
	else
		session passthrough --passthrough
		session splice ""
	fi
done >"$work/raw"

python3 - "$work/raw" "$(stat -c %s "$FILE")" <<'EOF'
import collections, statistics as st, sys
size = int(sys.argv[2])
v = collections.defaultdict(lambda: collections.defaultdict(list))  # v[label][fig] = per-session medians
order, sess = [], None
for line in open(sys.argv[1]):
    lab, fig, us = line.split()
    if fig == "mount-ready":
        sess = collections.defaultdict(list)
        v[lab]["_s"].append(sess)
    sess[fig].append(int(us))
    if fig not in order:
        order.append(fig)
for lab in v:
    for s in v[lab].pop("_s"):
        for fig, xs in s.items():
            v[lab][fig].append(st.median(xs))
print("| figure (ms) | fsmount | fsmount --passthrough | × |")
print("|---|---:|---:|---:|")
for fig in order:
    a, b = v["splice"][fig], v["passthrough"][fig]
    print(f"| {fig} | {st.median(a)/1e3:.1f} | {st.median(b)/1e3:.1f} | {st.median([y/x for x, y in zip(a, b)]):.2f} |")
print()
for lab in ("splice", "passthrough"):
    for kind in ("hot", "cold"):
        d, f = v[lab]["direct," + kind], v[lab]["files/," + kind]
        r = [x / y for x, y in zip(d, f)]
        print(f"files/model.safetensors, {kind}, {lab}: {size/st.median(f):.0f} MB/s against {size/st.median(d):.0f} direct: "
              f"{st.median(r):.2f}× (rounds {' '.join(f'{x:.2f}' for x in r)})")
print(f"\nmedians of {len(v['splice']['mount-ready'])} rounds; × is the median per-round ratio (passthrough to splice for times, files/ to direct for rates)")
EOF
