/* The alternating bit protocol over lossy channels, the pair of abp.pi (agentpi), whose
   header says how the two correspond. */
#include "actions.h"
#define N 2
#define TAU            2
#define MSG_SEND(d, b) (3 + 2 * (d) + (b))    /* msg!(d, b) */
#define MSG_RECV(d, b) (7 + 2 * (d) + (b))    /* msg?(d, b) */
#define ACK_SEND(b)    (11 + (b))             /* ack!(b) */
#define ACK_RECV(b)    (13 + (b))             /* ack?(b) */
#define DELIVER(d)     (15 + (d))             /* deliver(d) */

chan msg = [2] of { byte, bit };
chan ack = [2] of { bit };

active proctype Sender() {
  byte d; bit b;
  do
  :: if
     :: d_step { msg!d, b; DID(MSG_SEND(d, b)) }
     :: d_step { DID(MSG_SEND(d, b)) }
     fi;
     do
     :: d_step { ack?eval(b); DID(ACK_RECV(b)); d = (d + 1) % N; b = 1 - b }; break
     :: d_step { ack?eval(1 - b); DID(ACK_RECV(1 - b)) }
     :: d_step { DID(TAU) }; break
     od
  od
}

active proctype Receiver() {
  byte e, v; bit b;
  do
  :: d_step { msg?v, eval(b); DID(MSG_RECV(v, b)) };
     d_step { assert(v == e); DID(TAU) };
     d_step { DID(DELIVER(v)); e = (e + 1) % N; b = 1 - b; v = 0 };
     if
     :: d_step { ack!(1 - b); DID(ACK_SEND(1 - b)) }
     :: d_step { DID(ACK_SEND(1 - b)) }
     fi
  :: d_step { msg?v, eval(1 - b); DID(MSG_RECV(v, 1 - b)); v = 0 };
     if
     :: d_step { ack!(1 - b); DID(ACK_SEND(1 - b)) }
     :: d_step { DID(ACK_SEND(1 - b)) }
     fi
  od
}

#define RECEIVED (last == MSG_RECV(0, 0) || last == MSG_RECV(0, 1) || last == MSG_RECV(1, 0) || last == MSG_RECV(1, 1))
#define ACKED (last == ACK_SEND(0) || last == ACK_SEND(1))
#define DELIVERED (last == DELIVER(0) || last == DELIVER(1))

ltl deliver1 { [] !(last == DELIVER(1)) }
ltl mismatch { [] !(last == MSG_SEND(1, 0)) }
ltl progress { FIRST([] <> DELIVERED) }
ltl acked { FIRST([] (RECEIVED -> <> ACKED)) }
/* Without FIRST, which takes SPIN's translator 40 s here: a formula [] (p -> g) with p false
   at INIT reads the same from the initial state as from the first step. */
ltl order { [] (last == DELIVER(0) -> ((last == DELIVER(0)) U (!(last == DELIVER(0)) W (last == DELIVER(1))))) }
ltl wrong { FIRST([] (last == DELIVER(0) -> (!(last == DELIVER(0)) W (last == DELIVER(1))))) }

#include "stutter.h"
