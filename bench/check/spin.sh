#!/usr/bin/env bash
# agentpi against SPIN 6.5.2's compiled verifier on the same models, in one run: the table of
# bench/check/run_all.sh (see its header): every model of bench/check/ as NAME.pi, NAME.pml
# (one Promela process per agentpi process, rendezvous where agentpi communicates) and, where a
# SPIN user writes it otherwise, NAME.shared.pml (shared variables and atomic) or
# NAME.user.pml (Promela's buffered channels), SPIN breadth
# first and depth first, agentpi on 1 and 2 threads, CPU time and peak memory, state counts
# checked equal. Usage: REPS=3 bash bench/check/spin.sh [MODEL...]   (needs `spin` and `gcc`:
# `apt install spin`).
set -euo pipefail
exec bash "$(dirname "$0")/run_all.sh" "$@"
