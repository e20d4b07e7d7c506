/* A variable holding one translated pointer cannot take another kind. */
BEGIN
{
	this->p = curpsinfo;
	this->p = curlwpsinfo;
}
