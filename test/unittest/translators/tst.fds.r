version proc 0 0
<none> <none>
/proc/version <none>

