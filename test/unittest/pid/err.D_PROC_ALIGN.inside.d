/* @@trigger: fixture instrs 1 */

/*
 * Offset 2 of work is inside its second instruction (mov %rsp,%rbp
 * begins at 1 and is three bytes long): a breakpoint there would corrupt
 * it, so the description is refused, as DTrace refuses it.
 */
pid$target:a.out:work:2
{
}
