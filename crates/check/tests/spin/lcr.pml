/* Leader election on a unidirectional ring (Chang-Roberts, LCR) of three nodes, the pair of
   lcr.pi (agentpi), whose header says how the two correspond. */
#include "actions.h"
#define N 3
#define TAU          2
#define SEND(i, v)   (3 + N * (i) + (v))        /* ring[i]!(v) */
#define RECV(i, v)   (3 + N * N + N * (i) + (v)) /* ring[i]?(v) */
#define LEADER(i)    (3 + 2 * N * N + (i))      /* leader(i) */

chan ring[N] = [1] of { byte };

active [N] proctype Node() {
  byte v;
  d_step { ring[(_pid + 1) % N]!(N - 1 - _pid); DID(SEND((_pid + 1) % N, N - 1 - _pid)) };
end:
  do
  :: d_step { ring[_pid]?v; DID(RECV(_pid, v)) };
     if
     :: d_step { v > N - 1 - _pid -> DID(TAU) };
        d_step { ring[(_pid + 1) % N]!v; DID(SEND((_pid + 1) % N, v)); v = 0 }
     :: d_step { v == N - 1 - _pid -> DID(TAU); v = 0 };
        d_step { assert(_pid == 0); DID(TAU) };
        d_step { DID(LEADER(_pid)) };
        break
     :: d_step { v < N - 1 - _pid -> DID(TAU); v = 0 }
     fi
  od;
end_won:
  false
}

ltl leader1 { [] !(last == LEADER(1)) }
ltl leader0 { [] !(last == LEADER(0)) }
ltl elected { FIRST(<> (last == LEADER(0))) }
ltl again { FIRST([] <> (last == LEADER(0))) }
ltl dropped { FIRST([] !(last == RECV(1, 0))) }
ltl first { FIRST(!(last == LEADER(0)) U (last == RECV(0, 2))) }

#include "stutter.h"
