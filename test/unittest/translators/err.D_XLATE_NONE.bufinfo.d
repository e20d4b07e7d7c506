/* bufinfo_t translates a struct bio, not a task. */
BEGIN
{
	trace(xlate<bufinfo_t>(curthread).b_bcount);
}
