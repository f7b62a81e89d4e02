/* A remote call with crashes and timeouts, the pair of rpc.pi (agentpi), whose header says
   how the two correspond. */
#include "actions.h"
#define TRIES 2
#define TAU          2
#define REQ_SEND(a)  (3 + (a))     /* request!(a) */
#define REQ_RECV(a)  (5 + (a))     /* request?(a) */
#define REP_SEND(a)  (7 + (a))     /* reply!(a) */
#define REP_RECV(a)  (9 + (a))     /* reply?(a) */
#define OK           11            /* ok */
#define GIVE_UP      12            /* give_up */
#define CRASH        13            /* crash */

chan request = [1] of { byte };
chan reply = [1] of { byte };

active proctype Client() {
  byte a;
  do
  :: d_step { request!a; DID(REQ_SEND(a)) };
     do
     :: d_step { reply?eval(a); DID(REP_RECV(a)); a = 0 };
        d_step { DID(OK) };
        break
     :: d_step { reply?eval(1 - a); DID(REP_RECV(1 - a)) }
     :: d_step { a + 1 < TRIES -> DID(TAU); a = a + 1 };
        break
     :: d_step { a + 1 >= TRIES -> DID(TAU); a = 0 };
        d_step { DID(GIVE_UP) };
        break
     od
  od
}

active proctype Server() {
  byte a;
end:
  do
  :: d_step { request?a; DID(REQ_RECV(a)) };
     if
     :: d_step { reply!a; DID(REP_SEND(a)); a = 0 }
     :: d_step { DID(CRASH); a = 0 }
     fi
  :: d_step { DID(TAU) }
  od
}

ltl gaveup { [] !(last == GIVE_UP) }
ltl crashes { [] !(last == CRASH) }
ltl second { [] !(last == REP_RECV(1)) }
ltl calls { FIRST([] <> (last == OK || last == GIVE_UP)) }
ltl answered { FIRST([] <> (last == OK)) }
ltl retry { FIRST([] (last == REQ_SEND(1) -> <> (last == REP_RECV(1) || last == GIVE_UP))) }
ltl lost { FIRST([] (last == CRASH -> (!(last == OK) U (last == GIVE_UP)))) }

#include "stutter.h"
