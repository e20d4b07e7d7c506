killed: its event is left
next: the event is removed
and its own when it exits

