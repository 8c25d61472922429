#!/usr/bin/env bash
# What one client connection costs Weft in RSS and live heap, idle and with a Fetch in flight
# (dev.weft.soak.footprint.ConnectionFootprint; README.md, "Connection footprint").
#   soak-tests/footprint.sh --connections 1000
exec "$(dirname "${BASH_SOURCE[0]}")/run-tool.sh" dev.weft.soak.footprint.ConnectionFootprint "$@"
