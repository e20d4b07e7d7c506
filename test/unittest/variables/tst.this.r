7 loc

