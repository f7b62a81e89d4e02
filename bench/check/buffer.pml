/* A bounded buffer with sequence numbers, written as bench/check/buffer.pi is: three producers
   put (producer, sequence number modulo N) into one FIFO of K messages, the consumer takes
   each message and asserts that it carries the next number of its producer. A producer's send
   and increment are one atomic step (agentpi's one prefix); the consumer's check is a d_step
   that also resets the locals dead after it. States: see buffer.pi. */
#ifndef N
#define N 8
#endif
#ifndef K
#define K 3
#endif
chan buf = [K] of { byte, byte };

active [3] proctype Prod() {
  byte s;
end:
  do
  :: atomic { buf!_pid, s; s = (s + 1) % N }
  od
}

active proctype Cons() {
  byte w, v;
  byte e[3];  /* the next sequence number of each producer */
end:
  do
  :: buf?w, v;
     d_step { assert(v == e[w]); e[w] = (e[w] + 1) % N; w = 0; v = 0 }
  od
}
