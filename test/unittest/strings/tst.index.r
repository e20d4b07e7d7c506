B z o w D
CDEFG|yz|llo||
ABCDEFG

