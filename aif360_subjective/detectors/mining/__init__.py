"""Mined patterns: conjunctions of conditions on the features (values, quantile ranges), mined level by level
over bit-packed row sets, with their cell counts."""
