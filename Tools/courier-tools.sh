# Sourced by the scripts in Tools/: builds the courier-tools executable (in its own build folder,
# so narrowing the main manifest never rebuilds it) and runs it.
# How many build and test jobs to run at once: the machine's cores (COURIER_JOBS overrides).
courier_jobs() {
  echo "${COURIER_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}"
}

courier_tools() {
  local root
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  COURIER_MODULES=CourierTooling swift build -j "$(courier_jobs)" --package-path "$root" \
    --build-path "$root/.build/tools" --product courier-tools -q >&2 || return 2
  "$root/.build/tools/debug/courier-tools" "$@"
}

# Exits with a message naming the modules there are, unless $1 is a module (or TestSupport).
# $2 is the script's name for the message.
require_module() {
  if [ -d "Modules/$1" ] || [ "$1" = TestSupport ]; then return 0; fi
  echo "$2: no module named '$1'; modules: $(ls Modules | tr '\n' ' ')TestSupport" >&2
  exit 2
}

# Narrows the manifest to the dependency cone of the named modules; nothing when none is named.
narrow_to_modules() {
  [ $# -gt 0 ] || return 0
  COURIER_MODULES=$(IFS=,; echo "$*")
  export COURIER_MODULES
}

# What the suite's build adds to these build options, one per line: testing enabled when they
# name the release configuration (`-c release`), so that `@testable import` still works in
# optimised code; nothing otherwise, since SwiftPM's default, a debug build, enables it itself.
# Every script that reuses the suite's build adds these to its options, so that it finds it.
courier_suite_config() {
  local previous="" option
  for option in "$@"; do
    case "$previous $option" in
      "-c release"|"--configuration release"|*" --configuration=release")
        printf '%s\n' -Xswiftc -enable-testing
        return 0 ;;
    esac
    previous=$option
  done
}

# The folder of the products built with these build options: only --scratch-path and the
# configuration among them move it.
courier_bin_path() {
  local moving=()
  while [ $# -gt 0 ]; do
    case "$1" in
      --scratch-path|-c|--configuration) moving+=("$1" "${2:-}"); shift ;;
    esac
    shift
  done
  swift build ${moving[@]+"${moving[@]}"} --show-bin-path
}

# Runs `$1 ITEM` for each further argument, as many at once as courier_jobs says, oldest first;
# fails when any of them failed (each says itself what went wrong).
courier_each_per_core() {
  local command=$1 item status=0
  local running=()
  shift
  for item in "$@"; do
    "$command" "$item" &
    running+=($!)
    if [ ${#running[@]} -ge "$(courier_jobs)" ]; then
      wait "${running[0]}" || status=1
      running=("${running[@]:1}")
    fi
  done
  for item in ${running[@]+"${running[@]}"}; do wait "$item" || status=1; done
  return "$status"
}
