/*
 * This machine exposes no hardware counters: a generic hardware event is
 * refused with the reason.
 */
cpc:::PAPI_tot_ins-user-10000
{
}
