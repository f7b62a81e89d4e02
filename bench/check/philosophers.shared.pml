/* Dining philosophers as a SPIN user writes them: the forks are shared variables and a pick-up
   is a guarded atomic test-and-set, `atomic { fork[i] == 0 -> fork[i] = 1 }`. The same system
   as bench/check/philosophers.pi (its forks are processes, here they are bytes): philosopher
   i takes fork i, then fork i + 1, puts fork i down, then fork i + 1; exactly 3^N - 1 states,
   breadth-first and depth-first (run with plain `spin -a`: under -o3 a breadth-first search
   also stores the inside of each atomic). The table deadlocks when every philosopher holds
   the left fork; as bench/check/philosophers.pi does not check that, pan runs with -E. */
#ifndef N
#define N 12
#endif
byte fork[N];

active [N] proctype Phil() {
end:
  do
  :: atomic { fork[_pid] == 0 -> fork[_pid] = 1 };
     atomic { fork[(_pid + 1) % N] == 0 -> fork[(_pid + 1) % N] = 1 };
     fork[_pid] = 0;
     fork[(_pid + 1) % N] = 0
  od
}
