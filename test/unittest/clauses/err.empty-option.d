/*
 * With the empty option an empty program compiles, to nothing: then, as
 * dtrace(1M), no probes matched is an error.
 */
/* @@runtest-opts: -x empty */
