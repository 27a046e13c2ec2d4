#!/usr/bin/env bash
# README command 1: install what is missing, build (release), and run the main job on the
# bundled samples: a sample program writes a trace into a temporary TORCH_TRACE folder, tlparse
# turns it into an HTML report and an index. Prints where its output is. Idempotent.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Only what this script runs is installed and built (the quickstart preset: no tests or
# benchmarks, in the same build/release folder the second command completes).
"$ROOT/scripts/install-deps.sh" --quickstart
"$ROOT/scripts/build.sh" quickstart
BIN="$ROOT/build/release"

OUT="$(mktemp -d "${TMPDIR:-/tmp}/torchscope-quickstart.XXXXXX")"
TRACE_DIR="$OUT/trace"
echo
echo "== running samples with TORCH_TRACE=$TRACE_DIR"
# Inductor's compile cache starts empty here, so each sample's report shows a whole compile
# (pre-grad, post-grad, output code, a cache miss); the MLP runs a second time and hits.
export TORCHINDUCTOR_CACHE_DIR="$OUT/inductor-cache"
for sample in "$BIN"/samples/sample_*; do
  [[ -x "$sample" ]] || continue
  name="$(basename "$sample")"
  echo "   $name"
  TORCH_TRACE="$TRACE_DIR/$name" "$sample" >"$OUT/$name.txt"
  if [[ "$name" == sample_train_* ]]; then
    # The training samples compare compiled and eager training at every step: show the verdict.
    tail -n 2 "$OUT/$name.txt" | sed 's/^/      /'
    echo "      (every step: $OUT/$name.txt)"
  fi
done
if [[ -x "$BIN/samples/sample_mlp" ]]; then
  echo "   sample_mlp again (its compiles now come from the compile cache)"
  TORCH_TRACE="$TRACE_DIR/sample_mlp_cached" "$BIN/samples/sample_mlp" >/dev/null
fi
echo
echo "trace logs:"
ls -1 "$TRACE_DIR"/*/*.log | sed 's/^/   /'
if [[ -x "$BIN/tlparse/tlparse" ]]; then
  echo
  echo "== tlparse: one report per log (our samples' logs and the bundled PyTorch 2.11 logs)"
  for log in "$TRACE_DIR"/*/*.log "$ROOT"/samples/logs/*.log; do
    if [[ "$log" == "$TRACE_DIR"/* ]]; then
      name="$(basename "$(dirname "$log")")"
    else
      name="$(basename "$log" .log)"
    fi
    "$BIN/tlparse/tlparse" "$log" -o "$OUT/report/$name" --no-browser 2>"$OUT/report-$name.stderr" \
      || { cat "$OUT/report-$name.stderr" >&2; exit 1; }
    echo "   $OUT/report/$name/index.html"
  done
fi
if [[ -x "$BIN/gui/tlparse-gui" ]]; then
  echo
  echo "browse a report:  $BIN/gui/tlparse-gui $OUT/report/<name>/index.sqlite"
fi
echo
echo "output: $OUT"
