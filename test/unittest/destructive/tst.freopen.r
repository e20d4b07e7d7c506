back
kept

