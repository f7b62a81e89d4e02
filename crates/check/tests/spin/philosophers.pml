/* Dining philosophers, three of them, each fork a channel holding its token: the pair of
   philosophers.pi (agentpi), whose header says how the two correspond. */
#include "actions.h"
#define N 3
#define PUT(f)   (2 + (f))           /* fork[f]!(true) */
#define TAKE(f)  (2 + N + (f))       /* fork[f]?(true) */
#define EAT(i)   (2 + 2 * N + (i))   /* eat(i) */

chan fork[N] = [1] of { bool };

active [N] proctype Phil() {
  d_step { fork[_pid]!true; DID(PUT(_pid)) };
  do
  :: d_step { fork[_pid]?_; DID(TAKE(_pid)) };
     d_step { fork[(_pid + 1) % N]?_; DID(TAKE((_pid + 1) % N)) };
     d_step { DID(EAT(_pid)) };
     d_step { fork[_pid]!true; DID(PUT(_pid)) };
     d_step { fork[(_pid + 1) % N]!true; DID(PUT((_pid + 1) % N)) }
  od
}

#define EATS (last == EAT(0) || last == EAT(1) || last == EAT(2))

ltl eat2 { [] !(last == EAT(2)) }
/* Only true is ever put on the table: there is no code for taking false. */
ltl falsefork { [] !false }
ltl meals { FIRST([] <> EATS) }
ltl neighbours { FIRST([] (last == EAT(0) -> (!(last == EAT(1)) W (last == PUT(1))))) }
ltl putback { FIRST([] (last == EAT(0) -> (!(last == EAT(1)) U (last == PUT(1))))) }

#include "stutter.h"
