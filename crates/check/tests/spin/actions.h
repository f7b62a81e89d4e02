/* The action variable every .pml of this folder shares (see docs/oracles.md).
   agentpi's properties speak of the labels of steps, SPIN's of states: each step of a model
   here sets `last` to the code of its agentpi label (one code per distinct label, in the same
   atomic step), so a state predicate `last == CODE` holds exactly after a step with that
   label. The initial state has INIT, which no step sets; the stutter step of stutter.h sets
   NONE, which no label has. FIRST(f) reads f from the first step on, as agentpi does: SPIN's
   formulas start at the initial state, one position before the first step, and SPIN as
   packaged has no X operator, so "f at the next position" is written "INIT until, at the
   first non-INIT position, f" (INIT holds at position 0 only). */
#define INIT 0
#define NONE 1
byte last = INIT;
#ifdef NOLAST
/* The state space alone, as agentpi counts it: no step writes `last`. */
#define DID(code) skip
#else
#define DID(code) last = (code)
#endif
#define FIRST(f) ((last == INIT) U ((last != INIT) && (f)))
