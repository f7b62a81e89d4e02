/* Mutual exclusion: Peterson's filter lock for N processes with L levels, written as
   bench/check/filter.pi is: level[k] and victim[l] are register processes read and written by
   rendezvous, a monitor asserts that no two processes are in the critical section. States: see
   filter.pi (SPIN's "nominal states"; verify with spin -o3). */
#ifndef N
#define N 3
#endif
#ifndef L
#define L (N - 1)
#endif
chan lget[N] = [0] of { byte };
chan lset[N] = [0] of { byte };
chan vget[L + 1] = [0] of { byte };
chan vset[L + 1] = [0] of { byte };
chan enter = [0] of { byte };
chan leave = [0] of { byte };

active [N] proctype P() {
  byte l = 1, d = 1, v, w;
end:
Enter:
  lset[_pid]!l;
  vset[l]!_pid;
Scan:
  lget[(_pid + d) % N]?v;
  if
  :: d_step { v >= l -> v = 0; d = 1 }; goto Check
  :: d_step { v < l && d < N - 1 -> v = 0; d++ }; goto Scan
  :: d_step { v < l && d == N - 1 && l < L -> v = 0; d = 1; l++ }; goto Enter
  :: d_step { v < l && d == N - 1 && l == L -> v = 0; d = 1; l = 1 }; goto Crit
  fi;
Check:
  vget[l]?w;
  if
  :: d_step { w == _pid -> w = 0 }; goto Scan
  :: d_step { w != _pid && l < L -> w = 0; l++ }; goto Enter
  :: d_step { w != _pid && l == L -> w = 0; l = 1 }; goto Crit
  fi;
Crit:
  enter!_pid;
  leave!_pid;
  lset[_pid]!0;
  goto Enter
}

active [N] proctype Level() {
  byte k = _pid - N, v;
end:
  do
  :: lget[k]!v
  :: lset[k]?v
  od
}

active [L] proctype Victim() {
  byte l = _pid - 2 * N + 1, v;
end:
  do
  :: vget[l]!v
  :: vset[l]?v
  od
}

active proctype Mutex() {
  byte i;
end:
  do
  :: enter?i ->
     if
     :: leave?eval(i)
     :: enter?_ -> assert(false)
     fi
  od
}
