/* Included by the cpp tests. */
#define GREETING "hello from cpp.h"
