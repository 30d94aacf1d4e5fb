#!/usr/bin/env bash
# The same calls as the TypeScript and Python examples, with curl alone: each prints a "== name"
# line, then the service's JSON answer as it comes (pipe through `jq .` to read it comfortably).
#
# Environment: QB_BASE_URL (default http://127.0.0.1:8000, where `make run` serves) and QB_API_KEY
# (sent as `Authorization: Bearer <key>` when set, for deployments with API keys).
#
#     bash examples/curl/client.sh
set -euo pipefail

BASE_URL="${QB_BASE_URL:-http://127.0.0.1:8000}"
BASE_URL="${BASE_URL%/}"
auth=()
if [[ -n "${QB_API_KEY:-}" ]]; then
  auth=(-H "Authorization: Bearer ${QB_API_KEY}")
fi

# post NAME PATH BODY EXPECTED_STATUS: print the answer; fail (exit 1) on any other status, so a
# refused API key or a broken contract stops the script instead of scrolling past.
post() {
  local name=$1 path=$2 body=$3 expected=$4 answer status
  answer=$(curl -sS -X POST "${BASE_URL}${path}" "${auth[@]}" \
    -H 'Content-Type: application/json' -d "$body" -w '\n%{http_code}')
  status=${answer##*$'\n'}
  echo "== ${name} (HTTP ${status})"
  echo "${answer%$'\n'*}"
  if [[ "$status" != "$expected" ]]; then
    echo "${name}: expected HTTP ${expected}, got ${status} [${BASE_URL}]" >&2
    exit 1
  fi
}

post score /v1/hands/score '{"cards": ["KS", "QS", "JS", "JC"], "trump": "S"}' 200

post showdown /v1/showdown '{"trump": "H", "hands": [
  {"player": "bob", "cards": ["KH", "QH", "KD", "10D"]},
  {"player": "dan", "cards": ["QS", "JC", "QH", "JD"]}]}' 200

post betting /v1/betting/validate '{"players": ["ann", "bob", "cid", "dan"], "dealer": "dan",
  "ante": 10, "actions": [{"player": "ann", "type": "stake", "amount": 10},
  {"player": "bob", "type": "stake", "amount": 20}]}' 200

# Out of turn: a verdict (200, "valid": false), not an error.
post betting-out-of-turn /v1/betting/validate '{"players": ["ann", "bob"], "dealer": "bob",
  "ante": 10, "actions": [{"player": "bob", "type": "stake", "amount": 10}]}' 200

post settle /v1/rounds/settle '{"players": ["ann", "bob"], "dealer": "bob", "ante": 10,
  "trump": "S", "actions": [{"player": "ann", "type": "stake", "amount": 10},
  {"player": "bob", "type": "open", "amount": 10}],
  "hands": {"ann": ["KS", "QS", "JS", "JC"], "bob": ["KH", "QH", "KD", "10D"]}}' 200

post odds /v1/hands/odds '{"cards": ["KS", "QS", "JS", "JC"], "trump": "S", "opponents": 1}' 200

# "1C" is no card: a 422 problem document (application/problem+json) pointing at /cards/3.
post refused /v1/hands/score '{"cards": ["KS", "QS", "JS", "1C"]}' 422
