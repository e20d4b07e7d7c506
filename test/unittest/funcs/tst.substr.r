ell|llo|llo|he||ell|hello|

