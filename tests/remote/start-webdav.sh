#!/bin/sh
# start-webdav.sh DIR: starts nginx with WebDAV (dav + dav_ext) on 127.0.0.1 at
# a free port, serving DIR/data; writes the port to DIR/port and prints
# http://127.0.0.1:PORT. Stop it with stop-webdav.sh DIR. Where nginx is not
# installed (a GPU machine), or with KBCC_TEST_WEBDAV=python, it starts
# webdav-server.py instead, which speaks the same subset of WebDAV.
set -e
dir=$1
[ -n "$dir" ] || { echo "usage: start-webdav.sh DIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir/data" "$dir/tmp"
dir=$(cd "$dir" && pwd)
nginx=$(command -v nginx || echo /usr/sbin/nginx)
module=/usr/lib/nginx/modules/ngx_http_dav_ext_module.so
load=""
[ -f "$module" ] && load="load_module $module;"
user=""
[ "$(id -u)" = 0 ] && user="user root;"
# A server left behind by a failed test goes away by itself.
reap() {
  pid=$(cat "$1")
  python3 "$here/reaper.py" "$pid" "$2" >/dev/null 2>&1 </dev/null &
  echo $! > "$(dirname "$1")/reaper.pid"
}
# Whether 127.0.0.1:$1 accepts connections within 5 s.
listening() {
  python3 - "$1" <<'PY' 2>/dev/null
import socket, sys, time
for _ in range(100):
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=0.2).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.05)
sys.exit(1)
PY
}
if [ "${KBCC_TEST_WEBDAV:-}" = python ] || [ ! -x "$nginx" ]; then
  for attempt in 1 2 3 4 5; do
    port=$(python3 "$here/free-port.py")
    python3 "$here/webdav-server.py" "$dir/data" "$port" >>"$dir/start.log" 2>&1 </dev/null &
    echo $! > "$dir/nginx.pid"
    if listening "$port"; then
      echo "$port" > "$dir/port"
      reap "$dir/nginx.pid" webdav-server.py
      echo "http://127.0.0.1:$port"
      exit 0
    fi
    kill "$(cat "$dir/nginx.pid")" 2>/dev/null || true
  done
  echo "start-webdav.sh: webdav-server.py did not start (see $dir/start.log)" >&2
  exit 1
fi
for attempt in 1 2 3 4 5; do
  port=$(python3 "$here/free-port.py")
  cat > "$dir/nginx.conf" <<CONF
$load
$user
daemon on;
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log;
events { worker_connections 64; }
http {
  access_log $dir/access.log;
  client_body_temp_path $dir/tmp;
  proxy_temp_path $dir/tmp;
  fastcgi_temp_path $dir/tmp;
  uwsgi_temp_path $dir/tmp;
  scgi_temp_path $dir/tmp;
  client_max_body_size 0;
  server {
    listen 127.0.0.1:$port;
    root $dir/data;
    location / {
      dav_methods PUT DELETE MKCOL COPY MOVE;
      $( [ -n "$load" ] && echo "dav_ext_methods PROPFIND OPTIONS;" )
      create_full_put_path on;
      dav_access user:rw group:rw all:r;
      autoindex on;
    }
  }
}
CONF
  if "$nginx" -p "$dir" -c "$dir/nginx.conf" 2>>"$dir/start.log" && listening "$port"; then
    echo "$port" > "$dir/port"
    reap "$dir/nginx.pid" nginx
    echo "http://127.0.0.1:$port"
    exit 0
  fi
done
echo "start-webdav.sh: nginx did not start (see $dir/start.log and $dir/error.log)" >&2
exit 1
