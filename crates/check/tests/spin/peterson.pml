/* Peterson's mutual exclusion for two processes, the pair of peterson.pi (agentpi); its
   header says how the two correspond. */
#include "actions.h"
#define SET_FLAG(i, v) (2 + 2 * (i) + (v))   /* set_flag(i, v) */
#define GET_FLAG(i, v) (6 + 2 * (i) + (v))   /* get_flag(i, v) */
#define SET_TURN(t)    (10 + (t))            /* set_turn(t) */
#define GET_TURN(t)    (12 + (t))            /* get_turn(t) */
#define ENTER(i)       (14 + (i))            /* enter(i) */
#define LEAVE(i)       (16 + (i))            /* leave(i) */

bool flag[2];
bit turn;

active [2] proctype Pet() {
  do
  :: d_step { flag[_pid] = true; DID(SET_FLAG(_pid, 1)) };
     d_step { turn = 1 - _pid; DID(SET_TURN(1 - _pid)) };
     if
     :: d_step { !flag[1 - _pid] -> DID(GET_FLAG(1 - _pid, 0)) }
     :: d_step { turn == _pid -> DID(GET_TURN(_pid)) }
     fi;
     d_step { DID(ENTER(_pid)) };
     d_step { DID(LEAVE(_pid)) };
     d_step { flag[_pid] = false; DID(SET_FLAG(_pid, 0)) }
  od
}

ltl enter1 { [] !(last == ENTER(1)) }
ltl mutex0 { FIRST([] (last == ENTER(0) -> (!(last == ENTER(1)) U (last == LEAVE(0))))) }
ltl mutex1 { FIRST([] (last == ENTER(1) -> (!(last == ENTER(0)) U (last == LEAVE(1))))) }
ltl live0 { FIRST([] <> (last == ENTER(0))) }
ltl try0 { FIRST(<> (last == SET_FLAG(0, 1))) }
ltl wait1 { FIRST([] (last == SET_FLAG(1, 1) -> <> (last == ENTER(1)))) }
ltl starve1 { FIRST(<> [] !(last == ENTER(1))) }

#include "stutter.h"
