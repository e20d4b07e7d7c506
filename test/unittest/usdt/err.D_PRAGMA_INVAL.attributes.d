/*
 * A provider's attributes are DTrace's stability names and classes.
 */
#pragma D attributes Shiny/Evolving/Common provider shapes provider

provider shapes {
	probe moved(int);
};
