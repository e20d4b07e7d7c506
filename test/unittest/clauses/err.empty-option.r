dtrace: script 'err.empty-option.d' matched 0 probes
dtrace: no probes matched
