#!/usr/bin/env bash
# Builds crewagent (installing what is missing) and starts the desktop app.
# Usage: bash scripts/run.sh [--build-only]
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

build_only=false
[[ "${1:-}" == "--build-only" ]] && build_only=true

ensure_apt "${APT_BUILD_PACKAGES[@]}" "${APT_RUNTIME_PACKAGES[@]}"
ensure_go
ensure_node
npm_deps frontend
build_frontend
build_desktop
log "built $BIN"

$build_only && exit 0
if [[ -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" ]]; then
  # No desktop here: make the alternative we name work (a virtual display),
  # then say what to do instead of opening a window nobody can see.
  ensure_apt "${APT_HEADLESS_PACKAGES[@]}"
  die "no graphical display (DISPLAY and WAYLAND_DISPLAY are unset): run this from a desktop session.
       On this machine, the command line needs no display:  $BIN --help
       and the window runs on a virtual display (installed):  xvfb-run -a $BIN"
fi
log "starting $BIN (runtime home: ${CREWAGENT_HOME:-default})"
exec "$BIN"
