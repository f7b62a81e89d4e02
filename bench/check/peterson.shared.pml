/* Peterson's mutual exclusion for N processes (the filter algorithm of Lynch's book), as a
   SPIN user writes it (the algorithm of the N-process Peterson among SPIN's examples, which
   call the arrays flag[] and turn[] and count levels from 0): shared arrays level[] and
   victim[], each process climbing levels 1 .. N-1 (0: not competing), at each level waiting
   on every other process j with the blocking guard (level[j] < l || victim[l] != _pid), and
   a counter asserted in the critical section. Plain `spin -a` (statement merging and SPIN's
   data-flow optimisations on, as a user runs it). The same system, state for state, as
   bench/check/peterson.pi (its header says how the two correspond); states, breadth-first
   ("nominal") and depth-first:
     N = 2: 231   N = 3: 20,220   N = 4: 3,138,424
   Both find mutual exclusion and no invalid end state. */
#ifndef N
#define N 4
#endif
byte level[N];   /* level[i]: the level process i has reached; 0: not competing */
byte victim[N];  /* victim[l]: the process that came to level l last (1 <= l < N) */
byte ncs;        /* how many processes are in the critical section */

active [N] proctype P() {
  byte l, j;
again:
  l = 1;
  do
  :: l < N ->
     level[_pid] = l;
     victim[l] = _pid;
     j = 0;
     do
     :: j == _pid -> j++
     :: j != _pid && j < N -> (level[j] < l || victim[l] != _pid); j++
     :: j == N -> break
     od;
     l++
  :: else -> break
  od;
  ncs++;
  assert(ncs == 1);
  ncs--;
  level[_pid] = 0;
  goto again
}
