/*
 * A provider the target does not have matches nothing.
 */
/* @@trigger: fixture usdtapp */

nosuch$target:::query-start
{
}
