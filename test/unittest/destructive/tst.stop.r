stopped
resumed

