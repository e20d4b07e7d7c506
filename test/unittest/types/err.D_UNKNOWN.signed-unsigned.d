/* signed and unsigned together name no type. */
signed unsigned int x;
