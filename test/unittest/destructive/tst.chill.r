resumed
chilled

