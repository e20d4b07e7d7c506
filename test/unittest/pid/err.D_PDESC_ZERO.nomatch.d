/* @@trigger: fixture pidfuncs 1 */

/*
 * A function the executable does not have matches no probe.
 */
pid$target:a.out:dtt_nosuch:entry
{
}
