dtrace: could not enable tracing: Destructive actions not allowed
