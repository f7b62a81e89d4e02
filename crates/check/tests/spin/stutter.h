/* The stutter step, for LTL runs only (spin -DSTUTTER), included after every other process so
   that it takes the last pid. agentpi reads a finite maximal path (it ends in a deadlock or a
   valid end) as stuttering forever with a step that matches no label; SPIN stutters too but
   repeats the last state, whose `last` still names the last step. `timeout` is executable
   exactly in the states where no other process can move, the states without transitions, so
   this process takes one step there, setting `last` to NONE, and SPIN's stutter then repeats
   NONE: the same word as agentpi's. It is disabled in every other state, so it changes no
   fairness verdict, and it never moves twice. */
#ifdef STUTTER
active proctype Stutter() {
  d_step { timeout -> last = NONE };
end:
  false
}
#endif
