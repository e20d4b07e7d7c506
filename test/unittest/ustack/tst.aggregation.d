/*
 * An aggregation keyed by ustack(): printed after the command is gone,
 * each frame named from its object's build ID and offset (the objects a
 * -c command maps are known before it runs). The post-processor keeps
 * the fixture's own frames and drops their offsets, which depend on the
 * compiler.
 */
/* @@trigger: fixture frames */
#pragma D option quiet

frames$target:::here
{
	@[ustack()] = count();
}

END
{
	printa(@);
}
