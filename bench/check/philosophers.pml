/* Dining philosophers on free channels, written as bench/check/philosophers.pi is: forks and
   philosophers are processes, each pick-up and put-down a rendezvous naming (fork, philosopher).
   Philosopher i takes fork i, then fork i + 1, puts fork i down, then fork i + 1. */
#ifndef N
#define N 12
#endif
chan up = [0] of { byte, byte };
chan down = [0] of { byte, byte };

active [N] proctype Phil() {
  byte i = _pid;
end:
  do
  :: up!i, i; up!(i + 1) % N, i; down!i, i; down!(i + 1) % N, i
  od
}

active [N] proctype Fork() {
  byte f = _pid - N;
  byte p;
end:
  do
  :: up?eval(f), p -> down?eval(f), eval(p)
  od
}
