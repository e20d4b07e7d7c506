dtrace: script 'err.endtoobig.d' matched 4 probes
dtrace: could not enable tracing: END enablings exceed size of principal buffer
