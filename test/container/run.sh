#!/usr/bin/env bash
# npm run test:container: builds the image from the Dockerfile and runs it as a user would.
#
# Needs a Docker engine (`docker info` answers), debootstrap (for the stand-in base image when
# node:20-bookworm-slim cannot be pulled), curl and jq, and the machine's PostgreSQL and Redis
# (DATABASE_URL's server, default 127.0.0.1:5432 as postgres; REDIS_URL, default
# 127.0.0.1:6379). Containers use the host's network, so they reach those as the host does.
#
# The image is built from the same Dockerfile users build, with the host's `npm install --omit=dev`
# and `npm run build` output passed in (PREBUILT=true): a build step here cannot reach the npm
# registry. The base image and the production node_modules are cached between runs.
set -uo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
started=$(date +%s)
passed=0
failed=0
step() { echo "$(($(date +%s) - started))s  $*"; }
pass() { echo "  ✓ $1"; passed=$((passed + 1)); }
fail() { echo "  ✕ $1"; failed=$((failed + 1)); }
check() {
  local name="$1"
  shift
  if "$@"; then pass "$name"; else fail "$name"; fi
}
finish() {
  echo "container test took $(($(date +%s) - started)) s"
  echo "container: $passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit
}

IMAGE=chorus:container-test
RUN_ID="ct$$$(date +%s)"
API="chorus-$RUN_ID-api"
EMBEDDED="chorus-$RUN_ID-embedded"
VOLUME="chorus-$RUN_ID-data"
CACHE="${CHORUS_CONTAINER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/chorus-container}"
SERVER_URL="${DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/postgres}"
REDIS="${REDIS_URL:-redis://127.0.0.1:6379}"
DATABASE="chorus_container_$RUN_ID"
DATABASE_URL_RUN="${SERVER_URL%/*}/$DATABASE"
ENCRYPTION="$(node -p 'require("node:crypto").randomBytes(32).toString("hex")')"
STAGE="$CACHE/context-$RUN_ID"

psql_admin() { psql "$SERVER_URL" -v ON_ERROR_STOP=1 -qAt -c "$1"; }
cleanup() {
  docker rm -f "$API" "$EMBEDDED" >/dev/null 2>&1
  docker volume rm "$VOLUME" >/dev/null 2>&1
  psql_admin "DROP DATABASE IF EXISTS \"$DATABASE\" WITH (FORCE)" >/dev/null 2>&1
  rm -rf "$STAGE"
}
trap cleanup EXIT

free_port() { node -e 'const s=require("node:net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
# Waits up to $2 seconds for $1 to answer 200.
wait_ok() {
  for _ in $(seq 1 $(($2 * 2))); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$1")" = 200 ] && return 0
    sleep 0.5
  done
  return 1
}
# Whether the JSON $2 satisfies the jq filter $1.
json_has() { jq -e "$1" <<<"$2" >/dev/null 2>&1; }
exit_code() { docker inspect -f '{{.State.ExitCode}}' "$1"; }
health() { docker inspect -f '{{.State.Health.Status}}' "$1"; }
wait_healthy() {
  for _ in $(seq 1 45); do
    [ "$(health "$1")" = healthy ] && return 0
    sleep 1
  done
  return 1
}
# Stops a container as an orchestrator would (SIGTERM, 20 s grace); passes if it exits 0 in time.
stops_cleanly() {
  local t0=$(date +%s%N) code elapsed
  docker stop -t 20 "$1" >/dev/null
  elapsed=$(( ($(date +%s%N) - t0) / 1000000 ))
  code=$(exit_code "$1")
  echo "    docker stop: exit $code after $elapsed ms"
  [ "$code" = 0 ] && [ "$elapsed" -lt 20000 ]
}
cli() { docker run --rm --network host -e DATABASE_URL="$DATABASE_URL_RUN" -e ENCRYPTION_KEY="$ENCRYPTION" -e LOG_LEVEL=warn "$IMAGE" node dist/src/cli.js "$@"; }

docker info >/dev/null 2>&1 || {
  echo "No Docker engine answers. Start one (for example: dockerd --iptables=false --bridge=none &)." >&2
  exit 1
}
for tool in curl jq psql; do command -v "$tool" >/dev/null || { echo "$tool is needed" >&2; exit 1; }; done

step "prepared: the base image's root filesystem and the production dependencies (cached)"
bash test/container/prepare.sh || { fail "debootstrap and npm install --omit=dev (test/container/prepare.sh)"; finish; }
modules="$(bash test/container/base-image.sh --modules-dir)"

step "base image"
bash test/container/base-image.sh node:20-bookworm-slim || { fail "the base image can be made"; finish; }

step "host build: npm run build"
npm run -s build || { fail "npm run build"; finish; }
mkdir -p "$STAGE/prebuilt/dist" "$STAGE/test"
cp -r Dockerfile .dockerignore package.json package-lock.json tsconfig.json tsconfig.build.json nest-cli.json ormconfig.ts \
  src migrations "$STAGE/"
cp -r test/bench "$STAGE/test/"
cp -r dist/src dist/migrations dist/ormconfig.js "$STAGE/prebuilt/dist/"
cp -al "$modules/node_modules" "$STAGE/prebuilt/node_modules" 2>/dev/null || cp -r "$modules/node_modules" "$STAGE/prebuilt/"

step "docker build (Dockerfile, PREBUILT=true)"
build_started=$(date +%s)
previous=$(docker image inspect -f '{{.Id}}' "$IMAGE" 2>/dev/null)
if docker build --network host --build-arg PREBUILT=true -t "$IMAGE" "$STAGE" >"$CACHE/build.log" 2>&1; then
  pass "the image builds from the Dockerfile ($(($(date +%s) - build_started)) s)"
else
  tail -30 "$CACHE/build.log"
  fail "the image builds from the Dockerfile"
  finish
fi
# The image of the previous run, untagged by this build, and this build's first stage (an
# untagged image holding a copy of node_modules: ~360 MB a run) are removed, not left behind.
[ -n "$previous" ] && [ "$previous" != "$(docker image inspect -f '{{.Id}}' "$IMAGE")" ] && docker rmi "$previous" >/dev/null 2>&1
stage=$(awk '/^Step [0-9]+\/[0-9]+ : FROM /{froms++} froms == 1 && /^ ---> [0-9a-f]+$/{id=$2} END{print id}' "$CACHE/build.log")
[ -n "$stage" ] && docker rmi "$stage" >/dev/null 2>&1
size=$(docker image inspect -f '{{.Size}}' "$IMAGE")
echo "    image size: $((size / 1000000)) MB ($size bytes)"

step "on the machine's PostgreSQL and Redis"
psql_admin "CREATE DATABASE \"$DATABASE\"" || { fail "a database for the test"; finish; }
port=$(free_port)
docker run -d --name "$API" --network host --stop-timeout 20 \
  -e PORT="$port" -e DATABASE_URL="$DATABASE_URL_RUN" -e REDIS_URL="$REDIS" -e ENCRYPTION_KEY="$ENCRYPTION" \
  -e LOG_LEVEL=warn "$IMAGE" >/dev/null
check "/readyz answers 200 (database migrated, Redis answering)" wait_ok "http://127.0.0.1:$port/readyz" 90
readyz=$(curl -s "http://127.0.0.1:$port/readyz")
check "/readyz reports Redis configured" json_has '.details.redis.configured == true' "$readyz"
cli workspace create --name "Container test" --slug acme --plan pro --json >/dev/null &&
  cli member add --workspace acme --name "Ann Lee" --email ann@acme.test --json >/dev/null &&
  cli board create --workspace acme --slug ideas --name Ideas >/dev/null
key=$(cli key create --workspace acme --member ann@acme.test --json | jq -r .key)
check "a key made with docker run … node dist/src/cli.js" grep -q '^chorus_key_' <<<"$key"
created=$(curl -s -w '\n%{http_code}' -H "Authorization: Bearer $key" -H 'Content-Type: application/json' \
  -d '{"board":"ideas","title":"Made in a container"}' "http://127.0.0.1:$port/api/v1/posts")
check "a request is answered (POST /api/v1/posts: 201)" test "$(tail -1 <<<"$created")" = 201
check "the answer is the post" json_has '.data.title == "Made in a container"' "$(head -1 <<<"$created")"
check "the health check reports healthy" wait_healthy "$API"
check "docker stop ends it with exit 0 within the 20 s grace period" stops_cleanly "$API"

step "embedded database in a named volume, no DATABASE_URL"
port=$(free_port)
docker volume create "$VOLUME" >/dev/null
docker run -d --name "$EMBEDDED" --network host --stop-timeout 20 -e PORT="$port" -e LOG_LEVEL=warn \
  -v "$VOLUME:/data" "$IMAGE" >/dev/null
check "/readyz answers 200 on the embedded database" wait_ok "http://127.0.0.1:$port/readyz" 120
demo_key=$(docker exec "$EMBEDDED" cat /data/demo-key.txt 2>/dev/null)
check "the demo key is kept in the volume" grep -q '^chorus_key_' <<<"$demo_key"
status=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $demo_key" -H 'Content-Type: application/json' \
  -d '{"board":"feedback","title":"Written before the restart"}' "http://127.0.0.1:$port/api/v1/posts")
check "the demo key answers (POST /api/v1/posts: 201)" test "$status" = 201
check "docker stop ends the embedded one with exit 0 too" stops_cleanly "$EMBEDDED"
docker start "$EMBEDDED" >/dev/null
check "/readyz answers 200 after the restart" wait_ok "http://127.0.0.1:$port/readyz" 120
check "the demo key is the same after the restart" test "$(docker exec "$EMBEDDED" cat /data/demo-key.txt 2>/dev/null)" = "$demo_key"
found=$(curl -s -H "Authorization: Bearer $demo_key" "http://127.0.0.1:$port/api/v1/posts?q=before+the+restart")
check "the demo key answers and the data survived the restart" json_has '.data[0].title == "Written before the restart"' "$found"
docker stop -t 20 "$EMBEDDED" >/dev/null

step "compose.yaml"
if docker compose version >/dev/null 2>&1; then compose=(docker compose); else compose=(docker-compose); fi
services=$(ENCRYPTION_KEY="$ENCRYPTION" "${compose[@]}" -f compose.yaml config --services 2>&1 | sort | tr '\n' ' ')
echo "    ${compose[*]} config --services: $services"
check "${compose[*]} config accepts compose.yaml" test "$services" = "api-1 api-2 migrate postgres redis worker "
check "${compose[*]} config refuses it without ENCRYPTION_KEY" \
  bash -c "! env -u ENCRYPTION_KEY ${compose[*]} -f compose.yaml config -q >/dev/null 2>&1"

finish
