[abc] [       abc] [abc       ] [abc] [   xy]
[BEGIN]
[] [lit]

