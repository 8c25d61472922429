#!/usr/bin/env bash
# The load tool (dev.weft.soak.load.LoadTool): direct vs Weft vs HAProxy (and peers), interleaved.
# Installs nothing: the haproxy target needs Debian's haproxy (apt-get install haproxy).
#   soak-tests/load.sh --help
exec "$(dirname "${BASH_SOURCE[0]}")/run-tool.sh" dev.weft.soak.load.LoadTool "$@"
