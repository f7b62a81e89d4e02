/* Mutual exclusion with flags alone, broken (the test comes before the flag): the pair of
   peterson_late.pi (agentpi), whose header says how the two correspond. */
#include "actions.h"
#define SET_FLAG(i, v) (2 + 2 * (i) + (v))   /* set_flag(i, v) */
#define GET_FLAG(i, v) (6 + 2 * (i) + (v))   /* get_flag(i, v) */
#define ENTER(i)       (10 + (i))            /* enter(i) */
#define LEAVE(i)       (12 + (i))            /* leave(i) */

bool flag[2];

active [2] proctype Pet() {
  do
  :: d_step { !flag[1 - _pid] -> DID(GET_FLAG(1 - _pid, 0)) };
     d_step { flag[_pid] = true; DID(SET_FLAG(_pid, 1)) };
     d_step { DID(ENTER(_pid)) };
     d_step { DID(LEAVE(_pid)) };
     d_step { flag[_pid] = false; DID(SET_FLAG(_pid, 0)) }
  od
}

ltl mutex0 { FIRST([] (last == ENTER(0) -> (!(last == ENTER(1)) U (last == LEAVE(0))))) }
ltl readtrue { [] !(last == GET_FLAG(0, 1) || last == GET_FLAG(1, 1)) }
ltl live0 { FIRST([] <> (last == ENTER(0))) }
ltl progress { FIRST([] <> (last == ENTER(0) || last == ENTER(1))) }

#include "stutter.h"
