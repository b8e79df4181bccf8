# Sourced by the scripts in Tools/: builds the courier-tools executable (in its own build folder,
# so narrowing the main manifest never rebuilds it) and runs it.
courier_tools() {
  local root
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  COURIER_MODULES=CourierTooling swift build -j 2 --package-path "$root" \
    --build-path "$root/.build/tools" --product courier-tools -q >&2 || return 2
  "$root/.build/tools/debug/courier-tools" "$@"
}
