"""Error control of subgroup discovery: the permutation max-T over every candidate (row, keyed and clustered
permutations), intervals and p-values of each subgroup, and the continuous outcomes' studentized statistics."""
