/* A count below the minimum overflow count (5000) is refused. */
cpc:::cpu_clock-all-100
{
}
