chilled
resumed

