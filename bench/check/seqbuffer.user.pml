/* A bounded buffer with data and sequence numbers, as a SPIN user writes it: the producer
   picks a datum (select), sends it with its sequence number modulo M into a channel of K
   messages, the consumer takes each message and asserts that it carries the next number.
   Plain `spin -a` (statement merging and SPIN's data-flow optimisations on, as a user runs
   it). The same system, state for state, as bench/check/seqbuffer.pi (its header says how
   the two correspond); states, breadth-first ("nominal") and depth-first, M = 8:
     K = 2, D = 2: 745   K = 4, D = 4: 58,065   K = 6, D = 4: 928,465   K = 5, D = 6: 2,220,937
   Both find every number in order and no invalid end state. */
#ifndef M
#define M 8
#endif
#ifndef K
#define K 6
#endif
#ifndef D
#define D 4
#endif
chan buf = [K] of { byte, byte };  /* (sequence number, datum) */

active proctype Producer() {
  byte seq, d;
  do
  :: select(d : 0 .. D - 1);
     buf!seq, d;
     seq = (seq + 1) % M
  od
}

active proctype Consumer() {
  byte expect, s, d;
  do
  :: buf?s, d;
     assert(s == expect);
     expect = (expect + 1) % M
  od
}
