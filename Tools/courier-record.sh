# Sourced by Tools/simulate and Tools/model-check: `courier_record_run NAME TITLE COMMAND…` runs the
# command, shows its output, and appends the run to docs/reports/NAME.jsonl (rendering NAME.md).
courier_record_run() {
  local name=$1 title=$2 output status started=$SECONDS commit
  shift 2
  output=$(mktemp)
  set +e
  "$@" | tee "$output"
  status=${PIPESTATUS[0]}
  set -e
  commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
  [ -z "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] || commit="$commit-dirty"
  COURIER_COMMIT=$commit COURIER_TOOLCHAIN=$(swift --version 2>/dev/null | head -1) \
    COURIER_MACHINE="$(uname -s) $(uname -m)" \
    courier_tools record-run docs/reports "$name" "$title" "$status" "$((SECONDS - started))" \
    "$output" "Tools/$name" "${@:2}"
  rm -f "$output"
  return "$status"
}
