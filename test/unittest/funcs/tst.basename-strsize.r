c.d /a/b / .
lib /usr . /

