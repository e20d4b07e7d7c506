#pragma D option
BEGIN {}