/* Peterson's mutual exclusion for N processes (the filter lock, L levels) as a SPIN user writes
   it: level[] and victim[] are shared arrays, each read or write one statement, and the
   critical section increments a counter and asserts that it is 1. The same system as
   bench/check/filter.pi (whose shared variables are register processes read and written by
   handshakes, and whose monitor process takes `enter` and `leave`): the same steps, each
   condition after a read a d_step that also resets the locals dead after it, so the states are
   exactly filter.pi's (see its header; N = 4: 3,963,252). Run with plain `spin -a`. */
#ifndef N
#define N 3
#endif
#ifndef L
#define L (N - 1)
#endif
byte level[N];
byte victim[L + 1];
byte cs;  /* how many processes are in the critical section */

active [N] proctype P() {
  byte l = 1, d = 1, v, w;
end:
Enter:
  level[_pid] = l;
  victim[l] = _pid;
Scan:
  v = level[(_pid + d) % N];
  if
  :: d_step { v >= l -> v = 0; d = 1 }; goto Check
  :: d_step { v < l && d < N - 1 -> v = 0; d++ }; goto Scan
  :: d_step { v < l && d == N - 1 && l < L -> v = 0; d = 1; l++ }; goto Enter
  :: d_step { v < l && d == N - 1 && l == L -> v = 0; d = 1; l = 1 }; goto Crit
  fi;
Check:
  w = victim[l];
  if
  :: d_step { w == _pid -> w = 0 }; goto Scan
  :: d_step { w != _pid && l < L -> w = 0; l++ }; goto Enter
  :: d_step { w != _pid && l == L -> w = 0; l = 1 }; goto Crit
  fi;
Crit:
  atomic { cs++; assert(cs == 1) };
  cs--;
  level[_pid] = 0;
  goto Enter
}
