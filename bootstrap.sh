#!/usr/bin/env bash
# Sets up everything couplet needs on a Debian machine (as root), then runs a job:
#   ./bootstrap.sh demo    set up, then `couplet demo` on the default configuration
#   ./bootstrap.sh test    set up, then the whole test suite (pytest)
#   ./bootstrap.sh setup   set up only
# Each step is skipped when it is already done, so a second run is quick.
set -euo pipefail
cd "$(dirname "$0")"

APT_PACKAGES=(
  gcc-riscv64-unknown-elf binutils-riscv64-unknown-elf picolibc-riscv64-unknown-elf  # firmware
  g++ make perl git patch liblz4-dev zlib1g-dev                                     # Verilator (a Perl script; FST needs lz4), core and kernel patches
  python3 python3-venv python3-dev libpython3-dev                                   # tooling, cocotb
)
# Debian's own Python: cocotb needs its shared libpython, and it is the same on every machine.
PYTHON=/usr/bin/python3
VENV=.venv

say() {
  if [ -t 2 ]; then printf '\033[36mbootstrap:\033[0m %s\n' "$*" >&2; else printf 'bootstrap: %s\n' "$*" >&2; fi
}

install_apt_packages() {
  local missing=() pkg
  for pkg in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    say "missing Debian packages: ${missing[*]}; run this script as root (or install them)"
    exit 1
  fi
  say "installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # A transient dpkg 'cannot stat' failure was seen once (toolchain notes): retry once.
  apt-get install -y -qq "${missing[@]}" >/dev/null || { sleep 3; apt-get install -y -qq "${missing[@]}" >/dev/null; }
}

setup_venv() {
  if [ -x "$VENV/bin/python" ] && ! grep -q "^home = /usr/bin$" "$VENV/pyvenv.cfg" 2>/dev/null; then
    say "recreating $VENV with Debian's python3"
    rm -rf "$VENV"
  fi
  if [ ! -x "$VENV/bin/python" ]; then
    say "creating $VENV"
    "$PYTHON" -m venv "$VENV"
  fi
  local stamp
  stamp=$(cat requirements.txt pyproject.toml | sha256sum | cut -d' ' -f1)
  if [ "$(cat "$VENV/.couplet-stamp" 2>/dev/null)" != "$stamp" ] || [ ! -x "$VENV/bin/couplet" ]; then
    say "installing pinned Python packages into $VENV"
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r requirements.txt
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps --no-build-isolation -e .
    echo "$stamp" > "$VENV/.couplet-stamp"
  fi
}

# FreeRTOS firmware (fw/rtos/, docs/rtos.md) is a Rust crate: it needs rustup's target for the
# core and the crates of its Cargo.lock, fetched here so that builds and tests do not download.
RUST_TARGET=riscv32imac-unknown-none-elf

# Prints the path of a Rust tool: PATH first, then where rustup installs (CI may lack it on PATH).
find_rust_tool() {
  local dir
  if command -v "$1" >/dev/null 2>&1; then command -v "$1"; return 0; fi
  for dir in "${CARGO_HOME:-$HOME/.cargo}/bin" /root/.cargo/bin; do
    if [ -x "$dir/$1" ]; then echo "$dir/$1"; return 0; fi
  done
  return 1
}

setup_rust_firmware() {
  local rustup cargo
  if ! rustup=$(find_rust_tool rustup) || ! cargo=$(find_rust_tool cargo); then
    say "rustup and cargo are missing (looked on PATH and in ~/.cargo/bin): install Rust with rustup, then run this again"
    exit 1
  fi
  if ! "$rustup" target list --installed 2>/dev/null | grep -qx "$RUST_TARGET"; then
    say "adding the Rust target $RUST_TARGET"
    "$rustup" target add "$RUST_TARGET"
  fi
  # Quick when every crate is in cargo's cache already.
  (cd fw/rtos && "$cargo" fetch --locked --quiet)
}

job=${1:-setup}
[ $# -gt 0 ] && shift
case "$job" in
  setup|demo|test) ;;
  *) say "unknown job '$job' (use demo, test or setup)"; exit 2 ;;
esac

install_apt_packages
setup_venv
setup_rust_firmware

case "$job" in
  setup) say "set up; run '$VENV/bin/couplet --help' to start" ;;
  demo) exec "$VENV/bin/couplet" demo "$@" ;;
  test) exec "$VENV/bin/python" -m pytest "$@" ;;
esac
