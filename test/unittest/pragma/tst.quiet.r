quiet
