profile:profile-1000hz

