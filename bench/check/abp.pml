/* The alternating bit protocol over lossy channels, written as bench/check/abp.pi is: FIFOs of
   three messages that may lose any message (each send is `if :: c!m :: skip fi`), data
   0 .. N - 1 cyclically, retransmission on a nondeterministic timeout. States: 382 N. */
#ifndef N
#define N 400
#endif
chan msg = [3] of { short, bit };
chan ack = [3] of { bit };

active proctype Sender() {
  short d; bit b;
end:
  do
  :: if :: msg!d, b :: skip fi;
     do
     :: d_step { ack?eval(b); d = (d + 1) % N; b = 1 - b }; break
     :: ack?eval(1 - b)
     :: skip; break
     od
  od
}

active proctype Receiver() {
  short e, v; bit b;
end:
  do
  :: msg?v, eval(b) -> d_step { assert(v == e); e = (e + 1) % N; b = 1 - b; v = 0 };
     if :: ack!(1 - b) :: skip fi
  :: msg?_, eval(1 - b) -> if :: ack!(1 - b) :: skip fi
  od
}
