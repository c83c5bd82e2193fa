# %% [markdown]
# # placeholder
# %%
import numpy as np
