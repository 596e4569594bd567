# Sourced before a docs/try page runs (test/support/doc-pages.ts).
set -euo pipefail
trap 'echo "failed: $BASH_COMMAND" >&2' ERR

# Sign-in is limited per IP (5 a minute), so each page may send from a loopback address of its own.
curl() {
  if [ -n "${DOC_SOURCE_IP:-}" ]; then command curl --interface "$DOC_SOURCE_IP" "$@"; else command curl "$@"; fi
}

# expect_answer STATUS CODE curl-arguments...: prints the body; fails when the status, or the error
# code (when not empty), is not the one the page promises.
expect_answer() {
  local want=$1 code=$2 body status
  shift 2
  body=$(curl -s "$@" -w '\n%{http_code}')
  status=${body##*$'\n'}
  body=${body%$'\n'*}
  printf '%s\n' "$body"
  if [ "$status" != "$want" ] || { [ -n "$code" ] && [[ $body != *"\"code\":\"$code\""* ]]; }; then
    echo "expected $want $code, got $status from: curl $*" >&2
    exit 1
  fi
}

# need NAME: fails when the variable is empty or null (a capture that found nothing).
need() {
  local v=${!1:-}
  if [ -z "$v" ] || [ "$v" = null ]; then
    echo "$1 is empty (line $(caller))" >&2
    exit 1
  fi
}
