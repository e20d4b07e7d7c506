varies non-negative

