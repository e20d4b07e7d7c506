{"type":"probe","cpu":0,"id":1,"epid":1,"probe":{"provider":"dtrace","module":"","function":"","name":"BEGIN"},"records":[{"action":"printf","text":"hello 5\n"},{"action":"trace","value":7},{"action":"trace","value":"str\"ing"},{"action":"printa","aggregation":{"names":["@c"],"rows":[{"keys":["x"],"values":[1]},{"keys":["y"],"values":[2]}]}}]}
{"type":"probe","cpu":0,"id":1,"epid":2,"probe":{"provider":"dtrace","module":"","function":"","name":"BEGIN"},"records":[]}
{"type":"aggregation","names":["@q"],"rows":[{"keys":[],"values":[{"buckets":[{"label":"2","value":2,"count":1}]}]}]}
{"type":"aggregation","names":["@s"],"rows":[{"keys":[1,"two"],"values":[-3]}]}
{"type":"aggregation","names":["@a"],"rows":[{"keys":[],"values":[10]}]}
