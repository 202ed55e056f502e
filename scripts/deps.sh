#!/bin/sh
# Makes sure the libraries gpuquote builds against are installed.
#
#   scripts/deps.sh build   libraries for the server
#   scripts/deps.sh test    the same plus the test libraries (Check, OpenSSL), Node.js,
#                           and the servers the tests start (PostgreSQL, haproxy,
#                           Prometheus)
#   scripts/deps.sh tools   the same plus what make bench/fuzz/valgrind use
#
# On Debian or Ubuntu as root it installs what is missing with apt-get;
# otherwise it prints the one command to run and exits 1.
set -eu

set_wanted() {
    # pkg-config module -> Debian package
    wanted="libmicrohttpd:libmicrohttpd-dev jansson:libjansson-dev sqlite3:libsqlite3-dev libpq:libpq-dev nettle:nettle-dev liblz4:liblz4-dev jemalloc:libjemalloc-dev libcurl:libcurl4-gnutls-dev pangocairo:libpango1.0-dev cairo-pdf:libcairo2-dev"
    case "$1" in
    build) ;;
    test | tools) wanted="$wanted check:check libcrypto:libssl-dev" ;;
    *) echo "usage: $0 build|test|tools" >&2; exit 2 ;;
    esac
}

set_wanted "${1:-build}"
missing=""
command -v cc >/dev/null 2>&1 || missing="$missing gcc"
command -v make >/dev/null 2>&1 || missing="$missing make"
command -v pkg-config >/dev/null 2>&1 || missing="$missing pkg-config"
for pair in $wanted; do
    module=${pair%%:*}
    package=${pair#*:}
    if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists "$module"; then
        missing="$missing $package"
    fi
done
if [ "${1:-build}" != build ]; then
    # The contract check and the storefront's end-to-end tests run on
    # Node.js (18 or later: Debian 12's own); the page is tested in Debian's
    # Chromium (playwright-core drives it, and downloads no browser), with
    # a font that has Chinese glyphs for the screenshots.
    command -v node >/dev/null 2>&1 || missing="$missing nodejs"
    command -v npm >/dev/null 2>&1 || missing="$missing npm"
    # The commands of README.md and docs/ are run by tests/docs/run-docs.sh.
    for tool in curl jq openssl; do
        command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
    done
    # The tests start a PostgreSQL server of their own (scripts/postgres.sh)
    # and, for several replicas, a load balancer in front of them.
    ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing="$missing postgresql"
    command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ] || missing="$missing haproxy"
    # /metrics is scraped by a real Prometheus, and linted by its promtool.
    [ -x /usr/bin/prometheus ] && [ -x /usr/bin/promtool ] || missing="$missing prometheus"
    [ -x /usr/bin/chromium ] || missing="$missing chromium"
    # The quotation's PDF is read back by poppler's pdftotext and pdffonts.
    command -v pdftotext >/dev/null 2>&1 || missing="$missing poppler-utils"
fi
# The quotation's PDF embeds subsets of a font with Chinese glyphs (the
# server's, not only the tests').
[ -e /usr/share/fonts/truetype/wqy/wqy-microhei.ttc ] || missing="$missing fonts-wqy-microhei"
if [ "${1:-build}" = tools ]; then
    for pair in wrk:wrk nginx:nginx-light valgrind:valgrind clang:clang; do
        command -v "${pair%%:*}" >/dev/null 2>&1 || missing="$missing ${pair#*:}"
    done
    [ -e /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a ] ||
        ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 ||
        missing="$missing libclang-rt-dev"
fi
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "gpuquote: installing$missing" >&2
    export DEBIAN_FRONTEND=noninteractive
    # Another apt-get (an unattended upgrade, a second make) holds dpkg's
    # lock for a while: wait up to 5 min for it rather than fail at once.
    wait_for_lock="-o DPkg::Lock::Timeout=300"
    # shellcheck disable=SC2086 # one word per option and per package
    apt-get $wait_for_lock update -q >/dev/null
    # shellcheck disable=SC2086
    apt-get $wait_for_lock install -y -q --no-install-recommends $missing >/dev/null
    exit 0
fi
echo "gpuquote: missing$missing" >&2
echo "run: sudo apt-get install -y$missing" >&2
exit 1
