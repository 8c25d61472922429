#!/usr/bin/env bash
# Cross-zone fetch bytes, direct vs through Weft, in one run (dev.weft.soak.zone.ZoneTraffic; README.md,
# "Zone traffic").
#   soak-tests/zone-traffic.sh --weft-rack b --rounds 3
exec "$(dirname "${BASH_SOURCE[0]}")/run-tool.sh" dev.weft.soak.zone.ZoneTraffic "$@"
