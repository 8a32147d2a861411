#!/usr/bin/env bash
# Install what ibfab needs to build and test on Debian bookworm (run as root).
set -eu
pkgs="build-essential autoconf automake libtool pkg-config \
 opensm libopensm-dev libibumad-dev ibsim-utils libumad2sim0 infiniband-diags libibnetdisc-dev libibmad-dev valgrind time python3 \
 debhelper dpkg-dev lintian \
 clang libfuzzer-14-dev libglpk-dev \
 etcd-server libcurl4-openssl-dev"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "install-deps: need root to install:$missing" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update
	apt-get install -y $missing
fi
