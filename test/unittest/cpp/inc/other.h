/* Found through -I inc. */
#define OTHER 42
