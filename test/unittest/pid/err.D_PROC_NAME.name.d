/* @@trigger: fixture instrs 1 */

/*
 * A pid probe's name is entry, return or a hexadecimal offset.
 */
pid$target:a.out:work:start
{
}
