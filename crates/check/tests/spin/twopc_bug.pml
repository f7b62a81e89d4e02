/* Two-phase commit with a coordinator that decides on the first vote, broken: the pair of
   twopc_bug.pi (agentpi), whose header says how the two correspond. */
#include "actions.h"
#define YES 0
#define NO 1
#define COMMIT 0
#define ABORT 1
#define VOTE_SEND(i, v) (2 + 2 * (i) + (v))    /* vote!(i, v) */
#define VOTE_RECV(i, v) (6 + 2 * (i) + (v))    /* vote?(i, v) */
#define DEC_SEND(i, d)  (10 + 2 * (i) + (d))   /* decide[i]!(d) */
#define DEC_RECV(i, d)  (14 + 2 * (i) + (d))   /* decide[i]?(d) */
#define DONE(i, d)      (18 + 2 * (i) + (d))   /* done(i, d) */

chan vote = [2] of { byte, byte };
chan decide[2] = [1] of { byte };

active [2] proctype Participant() {
  byte d;
  if
  :: d_step { vote!_pid, YES; DID(VOTE_SEND(_pid, YES)) };
     d_step { decide[_pid]?d; DID(DEC_RECV(_pid, d)) };
     d_step { DID(DONE(_pid, d)); d = 0 }
  :: d_step { vote!_pid, NO; DID(VOTE_SEND(_pid, NO)) };
     d_step { DID(DONE(_pid, ABORT)) }
  fi;
end_done:
  false
}

active proctype Coordinator() {
  byte p, v; bool yes1;
  d_step { vote?p, v; DID(VOTE_RECV(p, v)); yes1 = (v == YES); p = 0; v = 0 };
  if
  :: d_step { yes1 -> decide[0]!COMMIT; DID(DEC_SEND(0, COMMIT)); yes1 = false };
     d_step { decide[1]!COMMIT; DID(DEC_SEND(1, COMMIT)) }
  :: d_step { !yes1 -> decide[0]!ABORT; DID(DEC_SEND(0, ABORT)) };
     d_step { decide[1]!ABORT; DID(DEC_SEND(1, ABORT)) }
  fi;
end_done:
  false
}

#define DONE_ANY(i) (last == DONE(i, COMMIT) || last == DONE(i, ABORT))
#define VOTED_NO (last == VOTE_SEND(0, NO) || last == VOTE_SEND(1, NO) || last == VOTE_RECV(0, NO) || last == VOTE_RECV(1, NO))
#define COMMITTED (last == DONE(0, COMMIT) || last == DONE(1, COMMIT))

ltl agree01 { FIRST(!(<> (last == DONE(0, COMMIT)) && <> (last == DONE(1, ABORT)))) }
ltl valid { FIRST([] (VOTED_NO -> [] !COMMITTED)) }
ltl ends1 { FIRST(<> DONE_ANY(1)) }

#include "stutter.h"
