#!/usr/bin/env bash
# Installs moto in server mode (moto_server), pinned with every dependency in moto-requirements.txt,
# into a virtualenv in the user's cache dir keyed by moto's version (pip-venv.sh). Only the first run on
# a machine pays (about 40 s with PyPI).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tool=moto
requirements="$here/moto-requirements.txt"
version="$(sed -n 's/^moto\[server\]==\(.*\)$/\1/p' "$requirements")"
check="moto_server --help"
# shellcheck source=pip-venv.sh
source "$here/pip-venv.sh"
[[ -n "$version" ]] || fail "$requirements has no moto[server]==VERSION line"
provision_venv
