"""The seed's subgroup detection (ASDF): clustering (exact SLINK, x-means and the other algorithms), the choice
of k, entropy-based patterns, and the cluster and entropy candidate families built from them.

References:
    J. Schäfer and L. Wiese, "ASDF-Dashboard: Automated Subgroup Detection and Fairness Analysis", CIKM
    workshops 2022.
"""
