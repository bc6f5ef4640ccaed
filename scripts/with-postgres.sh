#!/usr/bin/env bash
# Runs a command with a private PostgreSQL cluster on loopback: initdb into a temporary directory,
# pg_ctl start on a free port, SLUICE_POSTGRES_URL exported for the command, the cluster stopped
# and removed afterwards. Where no cluster can start (no PostgreSQL binaries, no user to run them
# as), it says why and runs the command without one: the PostgreSQL tests then skip, each
# printing that reason.
#
#   scripts/with-postgres.sh swift test --parallel
set -uo pipefail

bindir=""
if command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir)/initdb" ]; then
    bindir="$(pg_config --bindir)"
else
    bindir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
fi

if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
    export SLUICE_POSTGRES_SKIP_REASON="no PostgreSQL server binaries (apt-get install -y postgresql)"
    echo "with-postgres: $SLUICE_POSTGRES_SKIP_REASON; the PostgreSQL tests will skip." >&2
    exec "$@"
fi

# initdb and postgres refuse to run as root: as root, run them as the postgres user.
run_as=()
if [ "$(id -u)" = 0 ]; then
    if id postgres >/dev/null 2>&1; then
        run_as=(runuser -u postgres --)
    else
        export SLUICE_POSTGRES_SKIP_REASON="running as root and there is no postgres user to run the server as"
        echo "with-postgres: $SLUICE_POSTGRES_SKIP_REASON; the PostgreSQL tests will skip." >&2
        exec "$@"
    fi
fi

dir="$(mktemp -d /tmp/sluice-pg.XXXXXX)"
chmod 755 "$dir"
[ "${#run_as[@]}" -gt 0 ] && chown postgres "$dir"
password="sluice-test-$$-$RANDOM"
printf '%s\n' "$password" > "$dir/pwfile"
[ "${#run_as[@]}" -gt 0 ] && chown postgres "$dir/pwfile"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null || echo 55432)"

cleanup() {
    "${run_as[@]}" "$bindir/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1
    rm -rf "$dir"
}

if ! "${run_as[@]}" "$bindir/initdb" -D "$dir/data" -U sluice --pwfile="$dir/pwfile" \
        --auth=scram-sha-256 -E UTF8 --locale=C >"$dir/initdb.log" 2>&1; then
    export SLUICE_POSTGRES_SKIP_REASON="initdb failed: $(tail -1 "$dir/initdb.log")"
    echo "with-postgres: $SLUICE_POSTGRES_SKIP_REASON; the PostgreSQL tests will skip." >&2
    rm -rf "$dir"
    exec "$@"
fi
# TLS with a self-signed certificate when openssl is there, so that sslmode=require is tested
# too (clients that ask for no TLS still connect without it).
tls=""
if command -v openssl >/dev/null 2>&1 && openssl req -new -x509 -days 2 -nodes -subj /CN=localhost \
        -keyout "$dir/data/server.key" -out "$dir/data/server.crt" >/dev/null 2>&1; then
    chmod 600 "$dir/data/server.key"
    [ "${#run_as[@]}" -gt 0 ] && chown postgres "$dir/data/server.key" "$dir/data/server.crt"
    tls="-c ssl=on"
    export SLUICE_POSTGRES_TLS=1
fi
# fsync off: a test cluster that dies with the run need not survive a power loss.
if ! "${run_as[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories=$dir -c fsync=off -c max_connections=60 $tls" \
        start >/dev/null 2>&1; then
    export SLUICE_POSTGRES_SKIP_REASON="the server did not start: $(tail -1 "$dir/server.log")"
    echo "with-postgres: $SLUICE_POSTGRES_SKIP_REASON; the PostgreSQL tests will skip." >&2
    cleanup
    exec "$@"
fi
trap cleanup EXIT INT TERM

export SLUICE_POSTGRES_URL="postgres://sluice@127.0.0.1:$port/postgres?sslmode=disable"
export SLUICE_POSTGRES_PASSWORD="$password"
echo "with-postgres: PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') on 127.0.0.1:$port (data in $dir)" >&2
"$@"
