enabled

