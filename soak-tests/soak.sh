#!/usr/bin/env bash
# The soak run with faults (dev.weft.soak.SoakRun).
#   soak-tests/soak.sh --help
exec "$(dirname "${BASH_SOURCE[0]}")/run-tool.sh" dev.weft.soak.SoakRun "$@"
