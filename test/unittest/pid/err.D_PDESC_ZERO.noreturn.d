/* @@trigger: fixture instrs 1 */

/*
 * _start never returns (it ends in hlt): it has no return probe. A
 * uretprobe there would replace argc, the word on top of its stack.
 */
pid$target:a.out:_start:return
{
}
