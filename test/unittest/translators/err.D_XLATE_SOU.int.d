/* A translator makes a struct or union. */
translator int < int x > {
};
