echoo, world

