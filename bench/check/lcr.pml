/* Leader election on a unidirectional ring (Chang-Roberts / LCR), written as
   bench/check/lcr.pi is: node i sends to node i + 1 over a FIFO of one message, node i's
   identifier is N - 1 - i, so node 0 must win. States: see lcr.pi (verify with spin -o3). */
#ifndef N
#define N 7
#endif
chan ring[N] = [1] of { byte };

active [N] proctype Node() {
  byte v;
  ring[(_pid + 1) % N]!(N - 1 - _pid);
end:
  do
  :: ring[_pid]?v ->
     if
     :: v > N - 1 - _pid -> ring[(_pid + 1) % N]!v
     :: v == N - 1 - _pid -> assert(_pid == 0); break
     :: v < N - 1 - _pid
     fi
  od
}
