#!/usr/bin/env bash
# Installs the IAM policy linter parliament and the CloudFormation linter cfn-lint, pinned with every
# dependency in iam-linters-requirements.txt, into a virtualenv in the user's cache dir (pip-venv.sh).
# The lint test (test/iam-lint/) runs this first; only the first run on a machine pays.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tool=iam-linters
requirements="$here/iam-linters-requirements.txt"
pinned() { sed -n "s/^$1==\(.*\)\$/\1/p" "$requirements"; }
version="parliament-$(pinned parliament)-cfn-lint-$(pinned cfn-lint)"
check="cfn-lint --version"
# shellcheck source=pip-venv.sh
source "$here/pip-venv.sh"
provision_venv
