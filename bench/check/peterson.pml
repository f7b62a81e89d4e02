/* Peterson's mutual exclusion for N processes, bench/check/peterson.pi written the same way
   for SPIN (the rendezvous row beside peterson.shared.pml, the model a SPIN user writes):
   level[k], victim[l] and ncs are register processes read and written by rendezvous, one
   Promela statement per agentpi prefix (spin -o3). A read that decides is an atomic that
   starts with the receive (its inside is not a state), and resets the temporary v as
   agentpi keeps no value a term no longer reads; `j == _pid -> j++` and `j == N -> j = 0;
   l++` are one step each (d_step), as the plain `spin -a` of peterson.shared.pml merges
   them. States: as peterson.pi (SPIN's "nominal states" under -DBFS, which also stores one
   state per rendezvous: N = 4 stores 45,591,058 and takes 9 GB). */
#ifndef N
#define N 4
#endif
chan lget[N] = [0] of { byte };
chan lset[N] = [0] of { byte };
chan vget[N] = [0] of { byte };
chan vset[N] = [0] of { byte };
chan inc = [0] of { bit };
chan dec = [0] of { bit };
chan cget = [0] of { byte };

active [N] proctype P() {
  byte l, j, v;  /* l is 0 before the first round, N after each: peterson.pi's First, Again */
again:
  l = 1;
Round:
  if
  :: l < N
  :: else -> goto Crit
  fi;
  lset[_pid]!l;
  vset[l]!_pid;
  j = 0;
Scan:
  if
  :: d_step { j == _pid -> j++ }; goto Scan
  :: d_step { j != _pid && j < N -> skip }
  :: d_step { j == N -> j = 0; l++ }; goto Round
  fi;
Wait:  /* (level[j] < l || victim[l] != _pid): a false read returns here */
  if
  :: atomic { lget[j]?v -> if :: v < l -> v = 0; goto Next :: else -> v = 0; goto Wait fi }
  :: atomic { vget[l]?v -> if :: v != _pid -> v = 0; goto Next :: else -> v = 0; goto Wait fi }
  fi;
Next:
  j++;
  goto Scan;
Crit:
  inc!1;
  atomic { cget?v -> assert(v == 1); v = 0 };
  dec!1;
  lset[_pid]!0;
  goto again
}

active [N] proctype Level() {
  byte k = _pid - N, v;
end:
  do
  :: lget[k]!v
  :: lset[k]?v
  od
}

active [N - 1] proctype Victim() {
  byte l = _pid - 2 * N + 1, v;
end:
  do
  :: vget[l]!v
  :: vset[l]?v
  od
}

active proctype Count() {
  byte c;
end:
  do
  :: atomic { inc?_ -> c++ }
  :: atomic { dec?_ -> c-- }
  :: cget!c
  od
}
