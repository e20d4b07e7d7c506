/* A rate below the provider's floor is refused. */
profile-1ns
{
}
