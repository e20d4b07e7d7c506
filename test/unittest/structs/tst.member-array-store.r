3 AB

