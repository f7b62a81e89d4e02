/* The alternating bit protocol with a receiver that ignores the bit, broken: the pair of
   abp_dup.pi (agentpi), whose header says how the two correspond. */
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
  byte e, v; bit c;
  do
  :: d_step { msg?v, c; DID(MSG_RECV(v, c)) };
     d_step { assert(v == e); DID(TAU) };
     d_step { DID(DELIVER(v)); e = (e + 1) % N; v = 0 };
     if
     :: d_step { ack!c; DID(ACK_SEND(c)); c = 0 }
     :: d_step { DID(ACK_SEND(c)); c = 0 }
     fi
  od
}

#include "stutter.h"
