#!/bin/sh
# registry-entry.sh HASH > file.json: a minimal kernel registry entry.
printf '{"hash":"%s","qualified_name":"k_%s","archs":["sm_80"],"tu_path":"/src/%s.cu","first_seen":1,"last_seen":1,"build_count":1}\n' "$1" "$1" "$1"
