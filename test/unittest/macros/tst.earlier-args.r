third

