sleep

