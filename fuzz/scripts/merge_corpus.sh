#!/bin/sh
# Distils what fuzzing found (build-fuzz/work/<target>) and the committed corpus into a
# fresh fuzz/corpus/<target>: the smallest set of inputs that keeps every coverage feature
# (libFuzzer -merge=1), inputs capped at 4096 bytes.
# Usage: fuzz/scripts/merge_corpus.sh <target>
set -eu
target=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$root/build-fuzz
fresh=$build/merged/$target
rm -rf "$fresh"
mkdir -p "$fresh"
nice -n 19 "$build/fuzz/fuzz_$target" -merge=1 -max_len=4096 -timeout=10 \
  "$fresh" "$root/fuzz/corpus/$target" "$build/work/$target"
rm -rf "$root/fuzz/corpus/$target"
cp -r "$fresh" "$root/fuzz/corpus/$target"
echo "$target: $(ls "$root/fuzz/corpus/$target" | wc -l) files, $(du -sh "$root/fuzz/corpus/$target" | cut -f1)"
