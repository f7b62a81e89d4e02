/* A remote call without timeouts, broken (a crash leaves the client waiting for ever): the
   pair of rpc_notimeout.pi (agentpi), whose header says how the two correspond. */
#include "actions.h"
#define REQ_SEND  2     /* request!(true) */
#define REQ_RECV  3     /* request?(true) */
#define REP_SEND  4     /* reply!(true) */
#define REP_RECV  5     /* reply?(true) */
#define OK        6     /* ok */
#define CRASH     7     /* crash */

chan request = [1] of { bool };
chan reply = [1] of { bool };

active proctype Client() {
  do
  :: d_step { request!true; DID(REQ_SEND) };
     d_step { reply?_; DID(REP_RECV) };
     d_step { DID(OK) }
  od
}

active proctype Server() {
end:
  do
  :: d_step { request?_; DID(REQ_RECV) };
     if
     :: d_step { reply!true; DID(REP_SEND) }
     :: d_step { DID(CRASH) }
     fi
  od
}

ltl answered { [] !(last == OK) }
/* No step receives false: there is no such code, reply carries only true. */
ltl falsehood { [] !false }
ltl final { FIRST([] (last == CRASH -> [] !(last == OK))) }
ltl live { FIRST([] <> (last == OK)) }
ltl stops { FIRST(<> [] !(last == REQ_SEND || last == REQ_RECV)) }

#include "stutter.h"
