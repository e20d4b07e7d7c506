no header

