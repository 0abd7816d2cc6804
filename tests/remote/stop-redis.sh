#!/bin/sh
# stop-redis.sh DIR: stops the redis-server started by start-redis.sh DIR.
dir=$1
[ -f "$dir/redis.pid" ] || exit 0
pid=$(cat "$dir/redis.pid")
kill "$pid" 2>/dev/null
i=0
while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do i=$((i + 1)); sleep 0.05; done
rm -f "$dir/redis.pid"
[ -f "$dir/reaper.pid" ] && kill "$(cat "$dir/reaper.pid")" 2>/dev/null
rm -f "$dir/reaper.pid"
exit 0
