#!/bin/sh
# stop-webdav.sh DIR: stops the server (nginx or webdav-server.py) started by
# start-webdav.sh DIR.
dir=$1
[ -f "$dir/nginx.pid" ] || exit 0
pid=$(cat "$dir/nginx.pid")
kill -QUIT "$pid" 2>/dev/null
i=0
while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do i=$((i + 1)); sleep 0.05; done
kill -KILL "$pid" 2>/dev/null
rm -f "$dir/nginx.pid"
[ -f "$dir/reaper.pid" ] && kill "$(cat "$dir/reaper.pid")" 2>/dev/null
rm -f "$dir/reaper.pid"
exit 0
