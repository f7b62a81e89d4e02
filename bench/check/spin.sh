#!/usr/bin/env bash
# agentpi against SPIN 6.5.2's compiled verifier on the same models, in one run: the table of
# bench/check/run_all.sh (dining philosophers N = 10, 12, 14, the filter lock, LCR leader
# election, the alternating bit protocol, and rpc.pi for agentpi alone). Philosophers are
# bench/check/philosophers.{pi,pml}, both exactly 3^N - 1 states: SPIN's "nominal states"
# (under -DBFS it also stores one intermediate state per rendezvous, which is not a state of
# the model), so each table row compares the same state space.
# Usage: REPS=3 bash bench/check/spin.sh [MODEL...]   (see run_all.sh; needs `spin` and `gcc`:
# `apt install spin`). SPIN runs as issue 14 measured it: pan -DSAFETY -DNOREDUCE -DBFS.
set -euo pipefail
exec bash "$(dirname "$0")/run_all.sh" "$@"
