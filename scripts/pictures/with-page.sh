#!/bin/sh
# with-page.sh ADMIN_PORT COMMAND...: runs COMMAND (a relay) as if an architect had its route page open: 20 s after
# the start the page is loaded once (every picture drawn), then every 5 s, as the page's script does for the pictures
# in view at its top, the whole relay and the first route are fetched again. Stops with the relay.
admin=$1; shift
relay=$$
(
  sleep 20
  curl -s -o /dev/null "http://127.0.0.1:$admin/"
  while kill -0 $relay 2>/dev/null; do
    sleep 5
    curl -s -o /dev/null "http://127.0.0.1:$admin/routes.svg"
    curl -s -o /dev/null "http://127.0.0.1:$admin/routes/receive-telegram.svg"
  done
) &
exec "$@"
