/* const is kept in a type's name: messages show the kernel's own type. */
BEGIN
{
	trace(copyinstr(curthread->real_cred));
}
