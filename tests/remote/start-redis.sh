#!/bin/sh
# start-redis.sh DIR: starts redis-server on 127.0.0.1 at a free port with its
# files under DIR; writes the port to DIR/port and prints redis://127.0.0.1:PORT.
# Stop it with stop-redis.sh DIR.
set -e
dir=$1
[ -n "$dir" ] || { echo "usage: start-redis.sh DIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
# A server left behind by a failed test goes away by itself.
reap() {
  pid=$(cat "$1")
  python3 "$here/reaper.py" "$pid" "$2" >/dev/null 2>&1 </dev/null &
  echo $! > "$(dirname "$1")/reaper.pid"
}
for attempt in 1 2 3 4 5; do
  port=$(python3 "$here/free-port.py")
  if redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" --daemonize yes \
       --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" --save "" --appendonly no >/dev/null; then
    i=0
    while [ $i -lt 100 ]; do
      if redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null | grep -q PONG; then
        echo "$port" > "$dir/port"
        reap "$dir/redis.pid" redis-server
        echo "redis://127.0.0.1:$port"
        exit 0
      fi
      i=$((i + 1)); sleep 0.05
    done
  fi
done
echo "start-redis.sh: redis-server did not start (see $dir/redis.log)" >&2
exit 1
