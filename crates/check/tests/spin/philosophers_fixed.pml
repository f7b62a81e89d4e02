/* Dining philosophers without the deadlock (philosopher 2 takes its right fork first): the
   pair of philosophers_fixed.pi (agentpi), whose header says how the two correspond. */
#include "actions.h"
#define N 3
#define PUT(f)   (2 + (f))           /* fork[f]!(true) */
#define TAKE(f)  (2 + N + (f))       /* fork[f]?(true) */
#define EAT(i)   (2 + 2 * N + (i))   /* eat(i) */

chan fork[N] = [1] of { bool };

active [N - 1] proctype Phil() {
  d_step { fork[_pid]!true; DID(PUT(_pid)) };
  do
  :: d_step { fork[_pid]?_; DID(TAKE(_pid)) };
     d_step { fork[(_pid + 1) % N]?_; DID(TAKE((_pid + 1) % N)) };
     d_step { DID(EAT(_pid)) };
     d_step { fork[_pid]!true; DID(PUT(_pid)) };
     d_step { fork[(_pid + 1) % N]!true; DID(PUT((_pid + 1) % N)) }
  od
}

active proctype Lefty() {
  d_step { fork[_pid]!true; DID(PUT(_pid)) };
  do
  :: d_step { fork[(_pid + 1) % N]?_; DID(TAKE((_pid + 1) % N)) };
     d_step { fork[_pid]?_; DID(TAKE(_pid)) };
     d_step { DID(EAT(_pid)) };
     d_step { fork[_pid]!true; DID(PUT(_pid)) };
     d_step { fork[(_pid + 1) % N]!true; DID(PUT((_pid + 1) % N)) }
  od
}

#define EATS (last == EAT(0) || last == EAT(1) || last == EAT(2))

ltl eat0 { [] !(last == EAT(0)) }
/* Only true is ever put on the table: there is no code for taking false. */
ltl falsefork { [] !false }
ltl meals { FIRST([] <> EATS) }
ltl meals0 { FIRST([] <> (last == EAT(0))) }
ltl holds0 { FIRST([] (last == TAKE(0) -> <> (last == EAT(0)))) }

#include "stutter.h"
