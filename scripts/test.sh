#!/usr/bin/env bash
# Runs every check (installing what is missing): frontend build + unit tests,
# go vet, no unreachable functions (deadcode), go test -race (the MCP tests
# against servers installed from npm), the official MCP conformance suite's
# client scenarios (scripts/mcp-conformance.sh), a short run of every fuzz
# target, the desktop build, and the end-to-end tests in a real window under Xvfb.
# Env: FUZZTIME (default 5s per target; 0 skips fuzzing).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

FUZZTIME="${FUZZTIME:-5s}"
declare -a SUMMARY=()
failed=0

# step NAME CMD...: runs CMD, records its result and time; never stops the run.
step() {
  local name="$1"
  shift
  log "$name"
  local t0=$SECONDS status=0
  "$@" || status=$?
  local dt=$((SECONDS - t0))
  if ((status == 0)); then
    SUMMARY+=("$(printf '%sPASS%s  %4ss  %s' "$C_GREEN" "$C_OFF" "$dt" "$name")")
  else
    SUMMARY+=("$(printf '%sFAIL%s  %4ss  %s (exit %s)' "$C_RED" "$C_OFF" "$dt" "$name" "$status")")
    failed=$((failed + 1))
  fi
  return "$status"
}

# skip NAME WHY: a step left out on purpose. blocked NAME WHY: one that could
# not run because an earlier step failed (counts as a failure).
skip() { SUMMARY+=("$(printf '%sSKIP%s         %s (%s)' "$C_YELLOW" "$C_OFF" "$1" "$2")"); }
blocked() {
  SUMMARY+=("$(printf '%sFAIL%s         %s (not run: %s)' "$C_RED" "$C_OFF" "$1" "$2")")
  failed=$((failed + 1))
}

# Lists "package FuzzName" for every fuzz target in the module.
list_fuzz_targets() {
  { go test -list '^Fuzz' ./... 2>/dev/null || true; } | awk '
    /^Fuzz/ { names[++n] = $1; next }
    /^(ok|FAIL|\?)[ \t]/ { for (i = 1; i <= n; i++) print $2, names[i]; n = 0 }'
}

# fuzz_deadline_race OUT: true when a fuzz run failed only because its
# -fuzztime deadline raced the fuzzing coordinator's own shutdown, a Go
# toolchain bug before 1.27 (go.dev/issue/75804): every failure is the bare
# "context deadline exceeded", no panic, and no failing input was written.
fuzz_deadline_race() {
  grep -q 'Failing input written to' "$1" && return 1
  grep -q '^panic:' "$1" && return 1
  awk '
    /^--- FAIL: / { fails++; getline; if ($0 == "    context deadline exceeded") races++; next }
    END { exit !(fails > 0 && fails == races) }' "$1"
}

# fuzz_one PKG NAME OUT: one target for $FUZZTIME. A run that ends in the
# deadline race above fuzzed for its whole time and found nothing (a finding
# writes its input and is reported as such), so it counts as passed, with a
# note; any other failure fails. Minimising each new input is capped at 1s
# (the default, 60s, can spend a short run shrinking one input instead of
# exploring; a failing input is still written, only less shrunk).
fuzz_one() {
  local pkg="$1" name="$2" out="$3"
  if go test -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" -fuzzminimizetime 1s "$pkg" >"$out" 2>&1; then
    return 0
  fi
  fuzz_deadline_race "$out" || return 1
  echo "    ended in the toolchain's fuzzing deadline race after its full time, no failing input: passed"
}

fuzz_all() {
  local targets pkg name bad=0 out
  out="$(mktemp -t crewagent-fuzz.XXXXXX)"
  targets="$(list_fuzz_targets)"
  if [[ -z "$targets" ]]; then
    echo "no fuzz targets found"
    return 0
  fi
  while read -r pkg name; do
    printf '  %s %s (%s)\n' "$pkg" "$name" "$FUZZTIME"
    if ! fuzz_one "$pkg" "$name" "$out"; then
      cat "$out"
      bad=1
    fi
  done <<<"$targets"
  rm -f "$out"
  return "$bad"
}

frontend_tests() { (cd frontend && npm test --silent); }
e2e() { node e2e/run.mjs; }

step "system packages" ensure_apt "${APT_BUILD_PACKAGES[@]}" "${APT_RUNTIME_PACKAGES[@]}" "${APT_E2E_PACKAGES[@]}" || die "cannot continue without system packages"
toolchains() { ensure_go && ensure_node; }
npm_all() { npm_deps frontend && npm_deps e2e && npm_deps "$MCP_TEST_SERVERS_DIR"; }
step "toolchains (Go, Node)" toolchains || die "cannot continue without Go and Node"
step "npm install" npm_all || die "cannot continue without npm dependencies"
# The MCP tests run the npm servers installed above (and fail, not skip, under CI).
export CREWAGENT_MCP_TEST_SERVERS="$REPO_ROOT/$MCP_TEST_SERVERS_DIR/node_modules"

frontend_ok=true
step "frontend build (tsc + vite)" build_frontend || frontend_ok=false
step "frontend unit tests (vitest)" frontend_tests || true
step "go vet ./..." go vet ./... || true
step "deadcode (no unreachable production functions)" deadcode_check || true
step "go test -race ./..." go test -race -count=1 ./... || true
step "MCP conformance suite (client scenarios)" scripts/mcp-conformance.sh || true
if [[ "$FUZZTIME" == "0" ]]; then
  skip "fuzz targets" "FUZZTIME=0"
else
  step "fuzz targets (${FUZZTIME} each)" fuzz_all || true
fi

if $frontend_ok; then
  if step "desktop build ($BIN)" build_desktop; then
    step "end-to-end tests (Xvfb + WebKit inspector)" e2e || true
  else
    blocked "end-to-end tests" "no desktop build"
  fi
else
  blocked "desktop build" "the frontend did not build"
  blocked "end-to-end tests" "no desktop build"
fi

printf '\n%sSummary%s (%ss total)\n' "$C_BOLD" "$C_OFF" "$SECONDS"
printf '  %s\n' "${SUMMARY[@]}"
if ((failed > 0)); then
  printf '%s%d step(s) failed%s\n' "$C_RED" "$failed" "$C_OFF"
  exit 1
fi
printf '%sall checks passed%s\n' "$C_GREEN" "$C_OFF"
