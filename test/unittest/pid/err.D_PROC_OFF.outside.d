/* @@trigger: fixture instrs 1 */

/*
 * work is 15 bytes long: offset 0x10 is past its end.
 */
pid$target:a.out:work:10
{
}
