#pragma D option bufsize=
BEGIN {}