{"type":"error","epid":1,"id":1,"probe":{"provider":"dtrace","module":"","function":"","name":"BEGIN"},"action":1,"fault":1,"address":8,"message":"error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): invalid address (0x8) in action #1"}
{"type":"probe","cpu":0,"id":1,"epid":2,"probe":{"provider":"dtrace","module":"","function":"","name":"BEGIN"},"records":[{"action":"trace","value":"after"}]}
