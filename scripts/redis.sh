# Sourced by scripts/test and scripts/bench: install redis-server (and other
# tools) from Debian's packages if they are missing (as root), and start a
# private server on a free loopback port with no persistence, stopped when
# the script exits. start_redis exports VOTING_REDIS_ADDR.

say() { printf '\n== %s\n' "$*"; }

# install_package CMD PKG installs Debian's package PKG if the command CMD
# is missing (as root, with apt-get); it fails if CMD cannot be had.
APT_UPDATED=no
install_package() {
	command -v "$1" >/dev/null && return 0
	apt_install "$2"
}

# apt_install installs the Debian package $1, as root with apt-get; it
# fails without them.
apt_install() {
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		say "installing $1 from Debian's packages"
		export DEBIAN_FRONTEND=noninteractive
		if [ "$APT_UPDATED" = no ]; then
			apt-get update -qq
			APT_UPDATED=yes
		fi
		apt-get install -y -qq --no-install-recommends "$1" >/dev/null
		return 0
	fi
	return 1
}

install_redis() { install_package redis-server redis-server; }

# free_port sets FREE_PORT to a loopback port that nothing listens on and
# that no earlier call gave. With "cluster", port + 10000, the node's
# cluster bus, must be free too. Both stay below 32768, where Linux's
# outgoing connections take their ports, so that none can be in the way.
TAKEN_PORTS=" "
port_free() {
	case "$TAKEN_PORTS" in *" $1 "*) return 1 ;; esac
	! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}
free_port() {
	local port
	for port in $(shuf -i 20000-22767 -n 100); do
		port_free "$port" || continue
		if [ "${1:-}" = cluster ]; then
			port_free $((port + 10000)) || continue
			TAKEN_PORTS="$TAKEN_PORTS$((port + 10000)) "
		fi
		TAKEN_PORTS="$TAKEN_PORTS$port "
		FREE_PORT="$port"
		return 0
	done
	return 1
}

# stop_server DIR stops the redis-server whose pid file is in DIR, waits
# (up to 5 s) until it has exited, so that it writes nothing more there, and
# removes DIR. Clean-up never fails the script that calls it.
stop_server() {
	local pid
	if [ -f "$1/redis.pid" ]; then
		pid="$(cat "$1/redis.pid")"
		kill "$pid" 2>/dev/null || true
		for _ in $(seq 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
	fi
	rm -rf "$1" 2>/dev/null || true
}

REDIS_DIR=""
stop_redis() {
	if [ -n "$REDIS_DIR" ]; then stop_server "$REDIS_DIR"; fi
}
trap stop_redis EXIT

start_redis() {
	REDIS_DIR="$(mktemp -d)"
	local port
	free_port
	port="$FREE_PORT"
	redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
		--daemonize yes --pidfile "$REDIS_DIR/redis.pid" --dir "$REDIS_DIR" \
		--logfile "$REDIS_DIR/redis.log" "$@"
	for _ in $(seq 100); do
		if redis-cli -p "$port" ping 2>/dev/null | grep -q PONG; then
			export VOTING_REDIS_ADDR="127.0.0.1:$port"
			say "redis-server $(redis-server --version | grep -o 'v=[0-9.]*') on $VOTING_REDIS_ADDR"
			return 0
		fi
		sleep 0.1
	done
	cat "$REDIS_DIR/redis.log" >&2
	return 1
}

# start_cluster starts a Redis Cluster of three masters on free loopback
# ports, with no persistence, and exports VOTING_REDIS_CLUSTER.
CLUSTER_DIRS=()
stop_cluster() {
	local d
	for d in "${CLUSTER_DIRS[@]}"; do stop_server "$d"; done
}
trap 'stop_redis; stop_cluster' EXIT

start_cluster() {
	local nodes=() port d
	for _ in 1 2 3; do
		d="$(mktemp -d)"
		CLUSTER_DIRS+=("$d")
		free_port
		port="$FREE_PORT"
		redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
			--cluster-enabled yes --cluster-config-file "$d/nodes.conf" --cluster-node-timeout 5000 \
			--daemonize yes --pidfile "$d/redis.pid" --dir "$d" --logfile "$d/redis.log"
		nodes+=("127.0.0.1:$port")
	done
	local up
	for node in "${nodes[@]}"; do
		up=no
		for _ in $(seq 100); do
			if redis-cli -p "${node##*:}" ping 2>/dev/null | grep -q PONG; then up=yes; break; fi
			sleep 0.1
		done
		if [ "$up" = no ]; then
			echo "cluster node $node did not start" >&2
			cat "${CLUSTER_DIRS[@]/%//redis.log}" >&2 || true
			return 1
		fi
	done
	redis-cli --cluster create "${nodes[@]}" --cluster-replicas 0 --cluster-yes >/dev/null
	for _ in $(seq 100); do
		if redis-cli -p "${nodes[0]##*:}" cluster info | grep -q 'cluster_state:ok'; then
			VOTING_REDIS_CLUSTER="$(IFS=,; echo "${nodes[*]}")"
			export VOTING_REDIS_CLUSTER
			say "Redis Cluster of 3 masters on $VOTING_REDIS_CLUSTER"
			return 0
		fi
		sleep 0.1
	done
	echo "the cluster did not reach cluster_state:ok" >&2
	return 1
}
