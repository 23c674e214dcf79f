#!/usr/bin/env bash
# test/bench/mkbenchmarks.sh - regenerate docs/BENCHMARKS.md: the prose of
# test/bench/BENCHMARKS.head.md followed by every run page docs/bench/*.md
# (newest first by its date line), headings moved two levels down and image
# links made relative to docs/.
#
#   test/bench/mkbenchmarks.sh [DOCS_DIR]      (default docs)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
docs=${1:-$ROOT/docs}
out="$docs/BENCHMARKS.md"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

{
	cat "$ROOT/test/bench/BENCHMARKS.head.md"
	echo
	echo "## Runs"
	runs=$(for f in "$docs"/bench/*.md; do
		[ -f "$f" ] || continue
		d=$(sed -n 's/^- \*\*date\*\*: //p' "$f" | head -n 1)
		printf '%s\t%s\n' "${d:-0000}" "$f"
	done | sort -r | cut -f2)
	if [ -z "$runs" ]; then
		echo
		echo "No run yet: \`make bench\` writes the first one."
	fi
	for f in $runs; do
		echo
		sed -e 's/^#/###/' -e 's/](\([^)/]*\.png\))/](bench\/\1)/g' "$f"
	done
} >"$tmp"
mv "$tmp" "$out"
echo "wrote $out ($(echo "$runs" | grep -c . || true) runs)"
