[tab	here, quote" backslash\ octalA hexB]
[kept: \? \' \q C]

