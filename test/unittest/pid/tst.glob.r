dtt_greet  1
dtt_scale  1
dtt_add    5

