
Stability attributes for script tst.verbose.d:

	Minimum Probe Description Attributes
		Identifier Names: Private
		Data Semantics:   Private
		Dependency Class: ISA

	Minimum Statement Attributes
		Identifier Names: Private
		Data Semantics:   Private
		Dependency Class: ISA

read

