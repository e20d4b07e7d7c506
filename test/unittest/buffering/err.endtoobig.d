#pragma D option bufpolicy=fill
#pragma D option bufsize=4k
#pragma D option strsize=1k

/*
 * The fill policy keeps room for END's records in every buffer; a
 * program whose END records could not fit is refused.
 */
string s;

END { trace(s); }
END { trace(s); }
END { trace(s); }
END { trace(s); }
