entry /etc/hostname

