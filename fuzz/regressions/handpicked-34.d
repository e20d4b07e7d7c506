#pragma
BEGIN {}